import { Schema } from "effect"
import { BenchmarkName } from "../../domain/Question.js"
import type { AgentProtocol } from "../agent/AgentLoop.js"

/**
 * The agent protocol a run used, from its stored config: `tools` when it says so; runs stored before
 * the protocol was recorded could only use `json`.
 */
export const runProtocol = (config: unknown): AgentProtocol =>
  typeof config === "object" && config !== null && "protocol" in config && config.protocol === "tools"
    ? "tools"
    : "json"

/** The benchmark a run's questions came from, by its stored config; runs stored before it was recorded are Video-MME. */
export const benchmarkOfRun = (config: unknown): BenchmarkName => {
  const name = typeof config === "object" && config !== null && "benchmark" in config ? config.benchmark : undefined
  return Schema.is(BenchmarkName)(name) ? name : "videomme"
}

/**
 * Whether a run asks for a final answer when a question's step budget is spent, from its stored config:
 * runs stored before the mode was recorded never did.
 */
export const runFinalAnswer = (config: unknown): boolean =>
  typeof config === "object" && config !== null && "finalAnswer" in config && config.finalAnswer === true
