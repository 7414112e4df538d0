import { assert, describe, it } from "@effect/vitest"
import type { Prediction } from "../../../src/domain/Prediction.js"
import { configurationRejection, failedPrediction } from "../../../src/programs/harness/QuestionFailure.js"
import type { CallRecord } from "../../../src/services/CallLog.js"

const prediction = (patch: Partial<Prediction> = {}): Prediction => ({
  ...failedPrediction("q", "failed"),
  error: null,
  ...patch
})

const call = (patch: Partial<CallRecord>): CallRecord => ({
  questionId: "q",
  parentStep: 1,
  role: "agent",
  model: "m",
  startedAt: 0,
  durationMs: 1,
  promptTokens: 0,
  completionTokens: 0,
  status: "ok",
  errorReason: null,
  ...patch
})

describe("configurationRejection", () => {
  it("names the role's settings when any call was refused for its credentials", () => {
    const message = configurationRejection(prediction({ stopReason: "finished" }), [
      call({}),
      call({ role: "vlm", model: "vision-x", status: "error", errorReason: "Auth" })
    ])
    assert.match(
      message ?? "",
      /^the vlm model endpoint refused the credentials \(model vision-x\) — check VTREE_VLM_API_KEY/
    )
  })

  it("treats a 404 from the agent's endpoint as a wrong model name or base URL", () => {
    const message = configurationRejection(
      prediction({
        error: "llm: BadRequest: The model `gpt-9` does not exist",
        providerError: { provider: "llm", reason: "NotFound", status: 404 }
      }),
      [call({ status: "error", errorReason: "BadRequest" })]
    )
    assert.match(message ?? "", /404 .*gpt-9.* — check VTREE_LLM_MODEL and VTREE_LLM_BASE_URL/)
  })

  it("leaves question-level and transient failures to the question", () => {
    const transient = prediction({ providerError: { provider: "llm", reason: "Timeout", status: null } })
    assert.isUndefined(configurationRejection(transient, [call({ status: "error", errorReason: "Timeout" })]))
    const tooLong = prediction({ providerError: { provider: "llm", reason: "BadRequest", status: 400 } })
    assert.isUndefined(configurationRejection(tooLong, [call({ status: "error", errorReason: "BadRequest" })]))
    assert.isUndefined(configurationRejection(prediction({ stopReason: "finished" }), [call({})]))
  })
})
