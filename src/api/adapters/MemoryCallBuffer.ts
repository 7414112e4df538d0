/** CallBuffer and CallLog in memory: what `runBenchmark` saves each question's calls from. */
export { layer, make } from "../../layers/memory/MemoryCallBuffer.js"
