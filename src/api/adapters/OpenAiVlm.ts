/** VLMProvider over OpenAI-compatible chat endpoints that take images. */
export { layer, layerConfig, make } from "../../layers/openai/OpenAiVlm.js"
