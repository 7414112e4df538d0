/**
 * Fakes for tests and demos, swapped in for the real adapters with a Layer: scripted models that answer
 * from a list or a function and keep every request, an in-memory call log, a deterministic embedder.
 */
export { HashingEmbedder } from "../layers/testing/HashingEmbedder.js"
export { MemoryCallLog } from "../layers/testing/MemoryCallLog.js"
export * as ScriptedLlm from "../layers/testing/ScriptedLlm.js"
export * as ScriptedOcr from "../layers/testing/ScriptedOcr.js"
export * as ScriptedVlm from "../layers/testing/ScriptedVlm.js"
