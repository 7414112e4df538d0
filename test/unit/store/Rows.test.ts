// The SQL store's row models without a database: a row as the client hands it over (column names in
// camelCase, JSON text, 0/1 flags, NULLs) decodes to the port's row, and encodes back for INSERT.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { CallInsert, CallStored, PredictionStored, RunStored, StepStored } from "../../../src/layers/sql/Rows.js"
import { call, prediction } from "../../support/harness/RunRows.js"

const storedPrediction = {
  runId: "r",
  questionId: "q1",
  videoId: "vid1",
  taskType: "Counting Problem",
  duration: "short",
  domain: null,
  question: "How many cats appear?",
  optionsJson: "[\"A. one\",\"B. two\",\"C. three\",\"D. four\"]",
  answer: "B",
  prediction: "B",
  correct: 1,
  evidence: "two cats at 12s",
  reasoning: "counted them",
  stepsUsed: 2,
  stopReason: "finished",
  error: null,
  promptTokens: 100,
  completionTokens: 20,
  cachedPromptTokens: 30,
  reasoningTokens: null,
  startedAt: 1_000,
  finishedAt: 2_000,
  replyShapesJson: "{\"clean\":2}",
  worker: null
}

describe("row models", () => {
  it.effect("a predictions row reads as the port's row: JSON text parsed, 0/1 a boolean, NULL counts absent", () =>
    Effect.gen(function*() {
      const row = yield* Schema.decodeUnknown(PredictionStored)(storedPrediction)
      assert.deepStrictEqual(row, prediction({ questionId: "q1", cachedPromptTokens: 30, replyShapes: { clean: 2 } }))
      assert.isFalse("reasoningTokens" in row)
    }))

  it.effect("the submitted answer and its form read back as written; NULL as absent; an unknown form is refused", () =>
    Effect.gen(function*() {
      const row = yield* Schema.decodeUnknown(PredictionStored)({
        ...storedPrediction,
        answerText: "The answer is (B).",
        answerForm: "extracted"
      })
      assert.deepStrictEqual([row.answerText, row.answerForm], ["The answer is (B).", "extracted"])
      const blank = yield* Schema.decodeUnknown(PredictionStored)({
        ...storedPrediction,
        answerText: null,
        answerForm: null
      })
      assert.isFalse("answerText" in blank || "answerForm" in blank)
      const written = yield* Schema.encode(PredictionStored)({ ...blank, answerText: null })
      assert.deepStrictEqual([written.answerText, written.answerForm], [null, null])
      const unknown = yield* Effect.either(
        Schema.decodeUnknown(PredictionStored)({ ...storedPrediction, answerForm: "guessed" })
      )
      assert.isTrue(unknown._tag === "Left")
    }))

  it.effect("a row of an older database, without the columns later migrations added, reads with their defaults", () =>
    Effect.gen(function*() {
      const { replyShapesJson: _, worker: __, ...older } = storedPrediction
      const row = yield* Schema.decodeUnknown(PredictionStored)(older)
      assert.deepStrictEqual([row.replyShapes, row.worker], [{}, null])
      const step = yield* Schema.decodeUnknown(StepStored)({
        questionId: "q1",
        step: 1,
        tool: "view_node",
        argsJson: "{\"node_id\":\"n\"}",
        output: "o",
        thought: null,
        reflectJson: "{}",
        planJson: "{}"
      })
      assert.deepStrictEqual([step.args, step.replyShapes], [{ node_id: "n" }, []])
      const run = yield* Schema.decodeUnknown(RunStored)({
        runId: "r",
        startedAt: 1,
        finishedAt: null,
        status: "running",
        configJson: "{}"
      })
      assert.strictEqual(run.selection, null)
    }))

  it.effect("a call encodes every column, an unreported count or endpoint as NULL (a batch INSERT names the same ones in every row)", () =>
    Effect.gen(function*() {
      const [reported, silent] = yield* Schema.encode(Schema.Array(CallInsert))([
        { ...call({ cachedPromptTokens: 5, endpoint: "http://a/v1" }), runId: "r", superseded: false },
        { ...call(), runId: "r", superseded: true }
      ])
      assert.deepStrictEqual(Object.keys(silent!).sort(), Object.keys(reported!).sort())
      assert.deepStrictEqual([silent!.cachedPromptTokens, silent!.endpoint, silent!.superseded], [null, null, 1])
      const read = yield* Schema.decodeUnknown(CallStored)({ ...silent, callId: 7 })
      assert.deepStrictEqual([read.callId, "cachedPromptTokens" in read, "endpoint" in read, read.superseded], [
        7,
        false,
        false,
        true
      ])
    }))

  it.effect("a stored row that does not match fails to decode, naming the field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Schema.decodeUnknown(StepStored)({
          questionId: "q1",
          step: 1,
          tool: "t",
          argsJson: "not json",
          output: "o",
          thought: null,
          reflectJson: "{}",
          planJson: "{}"
        })
      )
      assert.include(error.message, "argsJson")
    }))
})
