/**
 * The settings the real adapters take (`X.layer(config)`), and the loaders that read them from the
 * VTREE_* environment (what `X.layerConfig` does).
 */
export { type AsrConfig, loadAsrConfig } from "../config/AsrConfig.js"
export { ConfigurationError, ConfigurationErrorReason } from "../config/ConfigurationError.js"
export {
  type EmbeddingConfig,
  type EndpointConfig,
  type LlmConfig,
  loadEmbeddingConfig,
  loadLlmConfig,
  loadOcrConfig,
  loadProvidersConfig,
  loadVlmConfig,
  type OcrConfig,
  type ProvidersConfig,
  type ReliabilityConfig,
  type TesseractConfig,
  type VlmConfig
} from "../config/ProviderConfig.js"
