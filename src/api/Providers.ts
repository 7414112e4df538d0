/**
 * The model ports the programs call (adapters: `OpenAiLlm`, `OpenAiVlm`, `OpenAiEmbedding`, `MonkeyOcr`,
 * `TesseractOcr`; fakes in `Testing`), the error they fail with, and the call log they report to. An
 * adapter of your own reports each attempt with `reportAttempt` (and can reuse `Reliability`).
 */
export { isRetryable, ProviderError, ProviderErrorReason } from "../domain/ProviderError.js"
export {
  CallLog,
  type CallOutcome,
  type CallRecord,
  type CallRole,
  recordCall,
  type ReportedCall
} from "../services/CallLog.js"
export { EmbeddingProvider } from "../services/EmbeddingProvider.js"
export { reportAttempt } from "../services/EndpointBreaker.js"
export {
  type ChatMessage,
  type ChatRequest,
  type ChatResponse,
  LLMProvider,
  type LlmRole,
  type ToolCall,
  type ToolDefinition,
  type Usage
} from "../services/LLMProvider.js"
export { OCRProvider } from "../services/OCRProvider.js"
export { type VisionRequest, VLMProvider } from "../services/VLMProvider.js"
