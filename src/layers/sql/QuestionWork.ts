// A run's questions in the store: planned as its queue, claimed a few at a time, each saved whole
// (prediction, steps, calls) in one transaction fenced by its owner's claim.
import { Clock, Effect, Option } from "effect"
import type { CallRecord } from "../../services/CallLog.js"
import type { RunStoreShape } from "../../services/RunStore.js"
import type { AnswerRepository } from "./AnswerRepository.js"
import { jsonRecord } from "./JsonValue.js"
import type { QueueRepository } from "./QueueRepository.js"
import { withoutRunId } from "./Rows.js"
import type { RunFailures } from "./RunFailures.js"
import type { RunRepository } from "./RunRepository.js"
import type { StoreContext } from "./StoreContext.js"

/** What the question work stands on: the store's context and the repositories it writes through. */
interface QuestionWorkDeps {
  readonly ctx: StoreContext
  readonly runs: RunRepository
  readonly queue: QueueRepository
  readonly answers: AnswerRepository
  readonly failures: RunFailures
}

/** A question's (or, for a null question, the run's) calls as rows, times rounded to whole milliseconds. */
const callInserter = (answers: AnswerRepository) =>
(
  runId: string,
  questionId: string | null,
  calls: ReadonlyArray<CallRecord>,
  superseded = false
) =>
  answers.insertCalls(calls.map((call) => ({
    ...call,
    runId,
    questionId,
    superseded,
    startedAt: Math.round(call.startedAt),
    durationMs: Math.round(call.durationMs)
  })))

const makePlanQuestions = ({ ctx: { guarded, sql }, failures, queue, runs }: QuestionWorkDeps) => {
  const { notFound, sameDatabase } = failures
  const planQuestions: RunStoreShape["planQuestions"] = Effect.fn("QuestionWork.planQuestions")(
    function*(runId, ids, options) {
      yield* sameDatabase(runId)
      const now = yield* Clock.currentTimeMillis
      const planned = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        if (Option.isNone(yield* runs.lockRun(runId))) return false
        yield* queue.insertQueue(ids.map((questionId, position) => ({ runId, questionId, position, done: 0 })))
        yield* queue.markSaved(runId)
        if (options?.retryErrors === true) yield* queue.reopenErrors(runId)
        yield* runs.reopenRun(runId)
        return true
      })))
      if (!planned) return yield* notFound(runId)
      // A run with no questions has no queue rows to count: it is there all the same, empty.
      const [progress] = yield* queue.progressOf({ runId, now })
      return progress === undefined ? { total: 0, done: 0, claimed: 0 } : withoutRunId(progress)
    },
    guarded("planning the run's questions")
  )
  return planQuestions
}

const makeClaimQuestions = ({ ctx: { guarded, sql }, failures, queue, runs }: QuestionWorkDeps) => {
  const { claimLost, sameDatabase } = failures
  const claimQuestions: RunStoreShape["claimQuestions"] = Effect.fn("QuestionWork.claimQuestions")(
    function*(runId, ownerId, limit) {
      yield* sameDatabase(runId)
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        if (Option.isNone(yield* runs.fence({ runId, ownerId }))) return undefined
        const taken = yield* queue.takeQuestions({ runId, ownerId, now, limit: Math.max(1, Math.floor(limit)) })
        return [...taken].sort((a, b) => a.position - b.position).map((row) => row.questionId)
      })))
      if (claimed === undefined) return yield* claimLost(runId, ownerId)
      // Counted only when there is nothing to hand out: a count over a large run's open rows at
      // every claim would cost more than the claim.
      if (claimed.length > 0) return { questionIds: claimed, heldByOthers: 0 }
      const [count] = yield* queue.heldElsewhere({ runId, ownerId, now })
      return { questionIds: claimed, heldByOthers: count?.held ?? 0 }
    },
    guarded("claiming questions")
  )
  return claimQuestions
}

/**
 * The statements of one question's save, to run in its transaction: "lost" when the owner's claim is
 * gone, "taken" when another owner has the question now, else "saved".
 */
const writeQuestion = ({ answers, ctx, queue, runs }: QuestionWorkDeps) => {
  const insertCalls = callInserter(answers)
  return (runId: string, record: Parameters<RunStoreShape["saveQuestion"]>[1], ownerId: string | undefined) =>
    Effect.gen(function*() {
      const p = record.prediction
      const questionId = p.questionId
      if (ownerId !== undefined && Option.isNone(yield* runs.fence({ runId, ownerId }))) return "lost" as const
      if (
        ctx.facts.queue && Option.isNone(yield* queue.finishQuestion({ runId, questionId, ownerId: ownerId ?? null }))
      ) {
        // Not done by this owner: either outside the queue (saved without one: fine) or another's now.
        if (ownerId !== undefined && Option.isSome(yield* queue.queued({ runId, questionId }))) {
          // Tokens reported are tokens spent: the calls stay, as run-level calls, superseded.
          yield* insertCalls(runId, null, record.calls, true)
          return "taken" as const
        }
      }
      yield* answers.supersedeCalls({ runId, questionId })
      yield* answers.deleteSteps({ runId, questionId })
      yield* answers.upsertPrediction({
        ...p,
        runId,
        startedAt: Math.round(p.startedAt),
        finishedAt: Math.round(p.finishedAt),
        replyShapes: p.replyShapes ?? {},
        worker: ownerId ?? p.worker ?? null
      })
      yield* answers.insertSteps(record.steps.map((step) => ({
        ...step,
        runId,
        questionId,
        // JSON-safe copies: what a tool was given is stored even when it is not plain JSON.
        args: jsonRecord(step.args),
        reflect: jsonRecord(step.reflect),
        plan: jsonRecord(step.plan),
        replyShapes: step.replyShapes ?? []
      })))
      yield* insertCalls(runId, questionId, record.calls)
      return "saved" as const
    })
}

const makeSaveQuestion = (deps: QuestionWorkDeps) => {
  const { ctx: { guarded, sql }, failures: { claimLost, sameDatabase } } = deps
  const write = writeQuestion(deps)
  const saveQuestion: RunStoreShape["saveQuestion"] = Effect.fn("QuestionWork.saveQuestion")(
    function*(runId, record, options) {
      // A question is never saved into a file that is not the run's any more (nobody would read it).
      yield* sameDatabase(runId)
      const ownerId = options?.ownerId
      // Uninterruptible: a question that finished while Ctrl-C arrives is still kept whole.
      const outcome = yield* Effect.uninterruptible(sql.withTransaction(write(runId, record, ownerId)))
      if (outcome === "lost") return yield* claimLost(runId, ownerId!)
      return outcome
    },
    (effect, runId, record) => guarded(`saving question "${record.prediction.questionId}" of run "${runId}"`)(effect)
  )
  return saveQuestion
}

const makeSaveRunCalls = ({ answers, ctx: { guarded, sql }, failures: { sameDatabase } }: QuestionWorkDeps) => {
  const insertCalls = callInserter(answers)
  const saveRunCalls: RunStoreShape["saveRunCalls"] = Effect.fn("QuestionWork.saveRunCalls")(function*(runId, calls) {
    yield* sameDatabase(runId)
    yield* Effect.uninterruptible(sql.withTransaction(insertCalls(runId, null, calls)))
  }, guarded("saving run-level calls"))
  return saveRunCalls
}

export const questionWork = (
  ctx: StoreContext,
  runs: RunRepository,
  queue: QueueRepository,
  answers: AnswerRepository,
  failures: RunFailures
) => {
  const deps: QuestionWorkDeps = { ctx, runs, queue, answers, failures }
  return {
    planQuestions: makePlanQuestions(deps),
    claimQuestions: makeClaimQuestions(deps),
    saveQuestion: makeSaveQuestion(deps),
    saveRunCalls: makeSaveRunCalls(deps)
  }
}
