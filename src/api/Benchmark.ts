/**
 * A whole benchmark run, as `vtree infer` does it: questions answered concurrently, each saved to the
 * `RunStore` whole, resumable. Needs the model ports, a `RunStore` and a `CallBuffer`
 * (`MemoryCallBuffer.layer`).
 */
export {
  type BenchmarkEvent,
  type BenchmarkOptions,
  type BenchmarkResult,
  defaultConcurrency
} from "../programs/harness/BenchmarkOptions.js"
export { runBenchmark } from "../programs/harness/Infer.js"
export { InferError, InferErrorReason } from "../programs/harness/InferError.js"
export { newRunId } from "../programs/harness/RunPlan.js"
