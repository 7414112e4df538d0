// A run's questions in the store: planned as its queue, claimed a few at a time, each saved whole
// (prediction, steps, calls) in one transaction fenced by its owner's claim.
import { Effect, Option } from "effect"
import { createHash, randomUUID } from "node:crypto"
import type { CallRecord } from "../../services/CallLog.js"
import type { RunStoreShape } from "../../services/RunStore.js"
import type { AnswerRepository } from "./AnswerRepository.js"
import { jsonRecord } from "./JsonValue.js"
import type { QueueRepository } from "./QueueRepository.js"
import { withoutRunId } from "./Rows.js"
import type { RunFailures } from "./RunFailures.js"
import type { RunRepository } from "./RunRepository.js"
import { type SaveTokens, saveTokens } from "./SaveTokens.js"
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

/** The question set as one value: a joining worker with the same set need not touch the queue's rows. */
const questionSetHash = (ids: ReadonlyArray<string>): string => {
  const hash = createHash("sha256")
  for (const id of ids) hash.update(`${id.length}:${id}`)
  return hash.digest("hex")
}

const makePlanQuestions = ({ ctx: { facts, guarded, rideOut, sql }, failures, queue, runs }: QuestionWorkDeps) => {
  const { notFound, sameDatabase } = failures
  const planQuestions: RunStoreShape["planQuestions"] = Effect.fn("QuestionWork.planQuestions")(
    function*(runId, ids, options) {
      yield* sameDatabase(runId)
      const hash = questionSetHash(ids)
      const retryErrors = options?.retryErrors === true
      const planned = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        if (Option.isNone(yield* runs.lockRun(runId))) return false
        // The set the queue was planned with (its hash and count): nothing to insert, nothing to mark.
        const known = facts.counts && !retryErrors ? yield* queue.queueOf(runId) : Option.none()
        if (Option.isSome(known) && known.value.questionHash === hash && known.value.questionCount === ids.length) {
          return true
        }
        yield* queue.insertQueue(ids.map((questionId, position) => ({ runId, questionId, position, done: 0 })))
        yield* queue.markSaved(runId)
        if (retryErrors) yield* queue.reopenErrors(runId)
        if (facts.counts) yield* queue.recount({ runId, hash })
        yield* runs.reopenRun(runId)
        return true
      })))
      if (!planned) return yield* notFound(runId)
      // A run with no questions has no queue rows to count: it is there all the same, empty.
      const [progress] = yield* queue.progressOf(runId)
      return progress === undefined ? { total: 0, done: 0, claimed: 0 } : withoutRunId(progress)
    },
    (effect, runId) => rideOut("planning the run's questions", runId)(guarded("planning the run's questions")(effect))
  )
  return planQuestions
}

const makeClaimQuestions = ({ ctx: { guarded, rideOut, sql }, failures, queue, runs }: QuestionWorkDeps) => {
  const { claimLost, sameDatabase } = failures
  const claimQuestions: RunStoreShape["claimQuestions"] = Effect.fn("QuestionWork.claimQuestions")(
    function*(runId, ownerId, limit) {
      yield* sameDatabase(runId)
      const claimed = yield* Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        if (Option.isNone(yield* runs.fence({ runId, ownerId }))) return undefined
        const taken = yield* queue.takeQuestions({ runId, ownerId, limit: Math.max(1, Math.floor(limit)) })
        return [...taken].sort((a, b) => a.position - b.position).map((row) => row.questionId)
      })))
      if (claimed === undefined) return yield* claimLost(runId, ownerId)
      // Counted only when there is nothing to hand out: a count over a large run's open rows at
      // every claim would cost more than the claim.
      if (claimed.length > 0) return { questionIds: claimed, heldByOthers: 0 }
      const [count] = yield* queue.heldElsewhere({ runId, ownerId })
      return { questionIds: claimed, heldByOthers: count?.held ?? 0 }
    },
    (effect, runId) => rideOut("claiming questions", runId)(guarded("claiming questions")(effect))
  )
  return claimQuestions
}

/** Marks the question done for the owner; none when it is another owner's now (or outside the queue). */
const finishInQueue = (queue: QueueRepository, runId: string, questionId: string, ownerId: string | null) =>
  Effect.gen(function*() {
    // Open until now: this save is the one that counts it done.
    const opened = yield* queue.finishOpen({ runId, questionId, ownerId })
    if (Option.isSome(opened)) {
      yield* queue.countDone(runId)
      return opened
    }
    return yield* queue.finishQuestion({ runId, questionId, ownerId })
  })

/**
 * The statements of one question's save, to run in its transaction: "lost" when the owner's claim is
 * gone, "taken" when another owner has the question now, else "saved". `token` is this save's, the
 * same on every attempt: an attempt that finds it stored was committed already (its acknowledgement
 * lost with the connection) and writes nothing again.
 */
const writeQuestion = ({ answers, ctx, queue, runs, tokens }: QuestionWorkDeps & { tokens: SaveTokens }) => {
  const insertCalls = callInserter(answers)
  return (
    runId: string,
    record: Parameters<RunStoreShape["saveQuestion"]>[1],
    ownerId: string | undefined,
    token: string
  ) =>
    Effect.gen(function*() {
      const p = record.prediction
      const questionId = p.questionId
      const fenced = ownerId === undefined || Option.isSome(yield* runs.fence({ runId, ownerId }))
      if (ctx.facts.counts && (yield* tokens.savedWith({ runId, questionId, token }))) return "saved" as const
      if (!fenced) return "lost" as const
      if (ctx.facts.queue && Option.isNone(yield* finishInQueue(queue, runId, questionId, ownerId ?? null))) {
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
      if (ctx.facts.counts) yield* tokens.keep({ runId, questionId, token })
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
  const { ctx: { guarded, rideOut, sql }, failures: { claimLost, sameDatabase } } = deps
  const write = writeQuestion({ ...deps, tokens: saveTokens(deps.ctx) })
  const saveQuestion: RunStoreShape["saveQuestion"] = Effect.fn("QuestionWork.saveQuestion")(
    function*(runId, record, options) {
      const ownerId = options?.ownerId
      const what = `saving question "${record.prediction.questionId}" of run "${runId}"`
      const token = randomUUID()
      // Uninterruptible: a question that finished while Ctrl-C arrives is still kept whole.
      const attempt = Effect.gen(function*() {
        // A question is never saved into a file that is not the run's any more (nobody would read it).
        yield* sameDatabase(runId)
        const outcome = yield* Effect.uninterruptible(sql.withTransaction(write(runId, record, ownerId, token)))
        if (outcome === "lost") return yield* claimLost(runId, ownerId!)
        return outcome
      })
      return yield* rideOut(what, runId)(guarded(what)(attempt))
    }
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
