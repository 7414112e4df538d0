// One question of a run: through the agent, into its stored row, saved with its steps and calls.
import { Cause, Clock, Effect, Either } from "effect"
import { answerTextOf } from "../../domain/Answer.js"
import { costOfCalls, type Prices } from "../../domain/Cost.js"
import type { Prediction } from "../../domain/Prediction.js"
import { countShapes } from "../../domain/Protocol.js"
import type { BenchmarkFacts, Question } from "../../domain/Question.js"
import { agentSettings } from "../../domain/RunConfig.js"
import { type PredictionRow } from "../../domain/RunRecord.js"
import type { TreeIndex } from "../../domain/TreeIndex.js"
import { captureCalls } from "../../services/CallBuffer.js"
import {
  addUsage,
  type CallRecord,
  emptyUsage,
  type RoleUsage,
  tokenDetails,
  type UsageByRole,
  withCallContext
} from "../../services/CallLog.js"
import { GenAiAttr } from "../../services/GenAiConventions.js"
import { RunStore } from "../../services/RunStore.js"
import { annotateSpan, currentCallCost, withInvokeAgentSpan } from "../../services/Telemetry.js"
import { type QuestionInput, runQuestion, type RunQuestionOptions } from "../agent/RunQuestion.js"
import type { BenchmarkEvent } from "./BenchmarkOptions.js"
import type { ControlAnswering } from "./BlindAnswer.js"
import { InferError } from "./InferError.js"
import { configurationRejection, describeCause, failedPrediction } from "./QuestionFailure.js"
import type { Environments } from "./TreeCache.js"

const sumUsage = (usage: UsageByRole): RoleUsage => {
  const total: RoleUsage = { calls: 0, promptTokens: 0, completionTokens: 0 }
  for (const role of Object.values(usage)) addUsage(total, role)
  return total
}

const usageOfCalls = (calls: ReadonlyArray<CallRecord>): UsageByRole => {
  const usage = emptyUsage()
  for (const call of calls) if (call.role !== "judge") addUsage(usage[call.role], call)
  return usage
}

/**
 * The question as the agent takes it: with its benchmark and its labels on the benchmark's category axis (the
 * first axis: Video-MME's task type, LVBench's question types, …), which the prompt pack reads.
 */
const agentInput = (
  question: Question,
  benchmark: BenchmarkFacts | undefined
): QuestionInput & Pick<Question, "videoId"> => ({
  ...question,
  ...(benchmark === undefined ? {} : { benchmark: benchmark.name, taskTypes: benchmark.categories[0]?.labels ?? [] })
})

/** One question through the agent; never fails but by interruption: a failure is an `error` prediction. */
const answerQuestion = <R>(
  question: QuestionInput & Pick<Question, "videoId">,
  trees: Environments,
  options: RunQuestionOptions<R> & ControlAnswering
) =>
  Effect.gen(function*() {
    // A blind or chance control answers without the tree.
    if (options.controlAnswer !== undefined) return { prediction: yield* options.controlAnswer(question), tree: null }
    const tree = yield* Effect.either(trees.get(question.videoId))
    if (Either.isLeft(tree)) return { prediction: failedPrediction(question.questionId, tree.left), tree: null }
    const prediction = yield* runQuestion(question, tree.right, options)
    return { prediction, tree: tree.right.index }
  }).pipe(
    withCallContext({ questionId: question.questionId, parentStep: null, usage: null }),
    // runQuestion never fails by contract; a defect in it still must not drop the question.
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.succeed({
          prediction: failedPrediction(question.questionId, `internal error: ${describeCause(cause)}`),
          tree: null
        })
    )
  )

/**
 * How a question ended, for its `invoke_agent` span: correct / wrong / unscored (no answer key) /
 * unanswered, the stop reason, steps, tokens and cost, the same figures its stored row has.
 */
const agentOutcome = (
  question: Question,
  prediction: Prediction,
  calls: ReadonlyArray<CallRecord>,
  prices: Prices | undefined
): Record<string, unknown> => {
  const tokens = usageOfCalls(calls)
  const total = sumUsage(tokens)
  const cost = prices === undefined ? null : costOfCalls(calls, prices)
  return {
    "vtree.outcome": question.options.length === 0
      ? "unscored"
      : prediction.prediction === null
      ? "unanswered"
      : question.answer === null
      ? "unscored"
      : prediction.prediction === question.answer
      ? "correct"
      : "wrong",
    "vtree.stop_reason": prediction.stopReason,
    "vtree.steps_used": prediction.stepsUsed,
    [GenAiAttr.inputTokens]: total.promptTokens,
    [GenAiAttr.outputTokens]: total.completionTokens,
    ...(cost === null ? {} : { "vtree.cost_usd": cost }),
    ...(prediction.stopReason === "error" || prediction.stopReason === "parse_error"
      ? { [GenAiAttr.errorType]: prediction.stopReason }
      : {})
  }
}

/** The stored row of one answered question. */
const predictionRow = (
  question: Question,
  answered: { readonly prediction: Prediction; readonly tree: TreeIndex | null },
  calls: ReadonlyArray<CallRecord>,
  startedAt: number,
  finishedAt: number,
  benchmark: BenchmarkFacts | undefined
): PredictionRow => {
  const { prediction, tree } = answered
  // A question that never reached the agent loop has no usage of its own; its calls still count.
  const accounted = Object.values(prediction.usage).some((role) => role.calls > 0)
  const tokens = sumUsage(accounted ? prediction.usage : usageOfCalls(calls))
  return {
    questionId: question.questionId,
    videoId: question.videoId,
    taskType: question.taskType,
    // Directory-form questions carry no duration; the tree knows it.
    duration: question.duration ?? tree?.durationCategory ?? null,
    domain: question.domain,
    question: question.question,
    options: question.options,
    answer: question.answer,
    prediction: prediction.prediction,
    ...answerTextOf(prediction.answer, question.options.length),
    correct: question.answer !== null && prediction.prediction === question.answer,
    evidence: prediction.evidence,
    reasoning: prediction.reasoning,
    stepsUsed: prediction.stepsUsed,
    stopReason: prediction.stopReason,
    ...(prediction.forced === true ? { forced: true } : {}),
    error: prediction.error,
    promptTokens: tokens.promptTokens,
    completionTokens: tokens.completionTokens,
    ...tokenDetails(tokens),
    startedAt,
    finishedAt,
    replyShapes: countShapes(prediction.steps),
    benchmark: benchmark ?? null
  }
}

/**
 * Answers one question and saves it with its steps and calls in one transaction. Once it has its
 * answer, saving is not interrupted: Ctrl-C keeps every finished question.
 */
export const answerAndSave = <R>(
  runId: string,
  ownerId: string,
  question: Question,
  trees: Environments,
  options: RunQuestionOptions<R> & ControlAnswering,
  onEvent: (event: BenchmarkEvent) => Effect.Effect<void>,
  benchmark?: BenchmarkFacts,
  /** The run's prices: the QuestionFinished event says what the question cost at them. */
  prices?: Prices
) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      const input = agentInput(question, benchmark)
      const [answered, calls] = yield* restore(
        captureCalls(question.questionId)(answerQuestion(input, trees, options)).pipe(
          Effect.tap(([answered, calls]) =>
            annotateSpan(() => agentOutcome(question, answered.prediction, calls, prices))
          ),
          Effect.locally(currentCallCost, prices === undefined ? null : (call) => costOfCalls([call], prices)),
          withInvokeAgentSpan({
            "vtree.run_id": runId,
            "vtree.question_id": question.questionId,
            "vtree.video_id": question.videoId,
            ...(benchmark === undefined ? {} : { "vtree.benchmark": benchmark.name }),
            ...(question.taskType === undefined ? {} : { "vtree.task_type": question.taskType })
          })
        )
      )
      const finishedAt = yield* Clock.currentTimeMillis
      // Not saved: once the setting is fixed, --resume must ask this question again.
      const rejection = configurationRejection(answered.prediction, calls)
      if (rejection !== undefined) {
        return yield* new InferError({
          reason: "ProviderRejected",
          message:
            `${rejection}; run ${runId} stopped (finished questions are saved: fix the setting and continue with --resume --run-id ${runId})`
        })
      }
      // Kept with the question, so a report shows what the agent was told and which skill it had.
      const hint = options.prompts.hint(input)
      const told = benchmark === undefined ? undefined : {
        ...benchmark,
        // A blind or chance control was given no skill.
        hint: {
          taskType: hint.taskType,
          skill: agentSettings(options).skillMode === "auto" && options.controlAnswer === undefined ? hint.skill : null
        }
      }
      const row = predictionRow(question, answered, calls, startedAt, finishedAt, told)
      const outcome = yield* (yield* RunStore).saveQuestion(runId, {
        prediction: row,
        steps: answered.prediction.steps.map((step) => ({
          step: step.index,
          tool: step.tool,
          args: step.args,
          output: step.output,
          thought: step.thought,
          reflect: step.reflect,
          plan: step.plan,
          ...(step.replyShapes === undefined ? {} : { replyShapes: step.replyShapes })
        })),
        calls
      }, { ownerId })
      yield* trees.release(question.videoId)
      if (outcome === "taken") {
        // This worker's lease lapsed (a long pause) and another took the question: its answer stands.
        yield* Effect.logWarning(
          `run ${runId}: question ${question.questionId} was taken over by another worker; its answer is kept, not this one`
        )
      } else {
        yield* onEvent({
          _tag: "QuestionFinished",
          row,
          calls: calls.length,
          costUsd: prices === undefined ? null : costOfCalls(calls, prices)
        })
      }
      return { calls, saved: outcome === "saved" }
    })
  )
