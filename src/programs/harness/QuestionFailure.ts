// How a question that went wrong is told: a failed prediction (kept as an `error` row), the one line
// of its cause, and whether it shows that an endpoint refuses the configuration itself.
import { Cause, Option } from "effect"
import { emptyToolStats, type Prediction } from "../../domain/Prediction.js"
import { type CallRecord, emptyUsage } from "../../services/CallLog.js"
import type { EndpointOutage } from "../../services/EndpointBreaker.js"
import { countOf } from "../../text/Format.js"

/** A question that never reached the agent, or whose run died: kept as an `error` row, never dropped. */
const settingsByRole: Readonly<Record<string, string>> = {
  agent: "VTREE_LLM_API_KEY / VTREE_LLM_MODEL",
  tool: "VTREE_TOOL_LLM_API_KEY / VTREE_TOOL_LLM_MODEL (they default to the VTREE_LLM_ values)",
  vlm: "VTREE_VLM_API_KEY / VTREE_VLM_MODEL (they default to the VTREE_LLM_ values)",
  embed: "VTREE_EMBED_API_KEY / VTREE_EMBED_MODEL",
  ocr: "VTREE_OCR_URLS"
}

/**
 * Whether a finished question shows that an endpoint refuses the configuration itself — the key
 * (401/403, any role) or the agent's model name (404) — rather than trouble with this one question.
 * Returns what to tell the user, or undefined.
 */
export const configurationRejection = (
  prediction: Prediction,
  calls: ReadonlyArray<CallRecord>
): string | undefined => {
  const refused = calls.find((call) => call.status === "error" && call.errorReason === "Auth")
  if (refused !== undefined) {
    return `the ${refused.role} model endpoint refused the credentials (model ${refused.model}) — check ${
      settingsByRole[refused.role] ?? "the provider settings"
    }`
  }
  const failure = prediction.providerError
  if (failure !== undefined && failure.reason === "NotFound") {
    return `the agent model endpoint answered 404 (${
      firstLine(prediction.error ?? "not found")
    }) — check VTREE_LLM_MODEL and VTREE_LLM_BASE_URL (it usually ends in /v1)`
  }
  return undefined
}

/** The variable that points each role at its endpoint. */
const baseUrlByRole: Readonly<Record<string, string>> = {
  agent: "VTREE_LLM_BASE_URL",
  tool: "VTREE_TOOL_LLM_BASE_URL (it defaults to VTREE_LLM_BASE_URL)",
  vlm: "VTREE_VLM_BASE_URL (it defaults to VTREE_LLM_BASE_URL)",
  embed: "VTREE_EMBED_BASE_URL",
  ocr: "VTREE_OCR_URLS",
  asr: "VTREE_ASR_BASE_URL"
}

/** What stopping a run for an unreachable endpoint tells the user: the role, its host(s), the variable to fix. */
export const outageMessage = (outage: EndpointOutage, runId: string): string => {
  const where = outage.hosts.length === 1
    ? `endpoint ${outage.hosts[0]}`
    : `endpoints (${outage.hosts.join(", ")})`
  return `the ${outage.role} model ${where} cannot be reached: ${countOf(outage.failures, "call")} in a row failed (${
    firstLine(outage.lastError)
  }) — start the server or fix ${baseUrlByRole[outage.role] ?? "its base URL"}; run ${runId} stopped ` +
    `(finished questions are saved: continue with --resume --run-id ${runId})`
}

/** A question that ended outside the agent loop (its tree failed to load, a defect): no steps, no usage. */
export const failedPrediction = (questionId: string, error: string): Prediction => ({
  questionId,
  answer: null,
  prediction: null,
  evidence: null,
  reasoning: null,
  steps: [],
  stepsUsed: 0,
  usage: emptyUsage(),
  stats: emptyToolStats(),
  stopReason: "error",
  error
})

export const firstLine = (text: string): string => text.split("\n").find((line) => line.trim() !== "")?.trim() ?? text

export const describeCause = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  const error: unknown = Option.isSome(failure) ? failure.value : Cause.squash(cause)
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return firstLine(error.message)
  }
  return firstLine(String(error))
}
