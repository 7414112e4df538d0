/** LLMProvider over OpenAI-compatible chat endpoints (the agent and tool roles). */
export { layer, layerConfig, make } from "../../layers/openai/OpenAiLlm.js"
