/** EmbeddingProvider over an OpenAI-compatible embeddings endpoint. */
export { layer, layerConfig, make } from "../../layers/openai/OpenAiEmbedding.js"
