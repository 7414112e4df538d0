// The benchmark harness as an Effect program: `vtree infer` is this plus flag parsing, layers and a
// progress display. It needs only ports (RunStore, CallBuffer, the providers), so an embedding app can
// run a whole benchmark with its own layers or the fakes. The steps live beside it: RunPlan (checks,
// start or resume), TreeCache, AnswerQuestion (one question saved), RunLease (heartbeat, release).
import * as Path from "@effect/platform/Path"
import { Effect, Exit, Option } from "effect"
import { costOfCalls } from "../../domain/Cost.js"
import type { Question } from "../../domain/Question.js"
import { agentSettings, type RunConfig } from "../../domain/RunConfig.js"
import { type RunStatus } from "../../domain/RunRecord.js"
import { defaultBreakerCalls, makeBreaker, withBreaker } from "../../services/EndpointBreaker.js"
import { workflowNames } from "../../services/GenAiConventions.js"
import { defaultLeaseMs, type RunOwner, RunStore } from "../../services/RunStore.js"
import { storeOutageListener } from "../../services/StoreOutage.js"
import { workflowSpan } from "../../services/Telemetry.js"
import type { RunQuestionOptions } from "../agent/RunQuestion.js"
import { makeSummaryCache } from "../tools/SummaryCache.js"
import { answerAndSave } from "./AnswerQuestion.js"
import type { BenchmarkOptions, BenchmarkResult } from "./BenchmarkOptions.js"
import type { ControlAnswering } from "./BlindAnswer.js"
import { Budget } from "./Budget.js"
import { controlAnswering, controlEnvironments } from "./Controls.js"
import { InferError } from "./InferError.js"
import { outageMessage } from "./QuestionFailure.js"
import { heartbeat, releaseRun, thisProcess, watchRun } from "./RunLease.js"
import { prepareRun, runConfigOf } from "./RunPlan.js"
import { claimBatch, makeWorkQueue } from "./WorkQueue.js"

/** The run's budget under `maxCostUsd`, counting what a resumed run already spent. */
const makeBudget = Effect.fn("Infer.makeBudget")(function*(runId: string, options: BenchmarkOptions<any>) {
  if (options.maxCostUsd === undefined) return undefined
  // Prices are known to be there: optionProblem refused the run before it started otherwise.
  const prices = options.prices ?? {}
  const spentBefore = options.resume === true
    ? costOfCalls((yield* (yield* RunStore).loadRun(runId, { includeSteps: false })).calls, prices)
    : 0
  return new Budget(options.maxCostUsd, spentBefore ?? Number.POSITIVE_INFINITY)
})

/** What prepareRun hands the work: the run, its mode and the questions open when this worker joined. */
type Plan = Effect.Effect.Success<ReturnType<typeof prepareRun>>

/**
 * This worker's part of the run: `concurrency` fibers, each taking the next question from the run's queue
 * until it has none left for this worker, every answer saved (and counted in `answered`).
 */
const answerAll = <R>(
  options: BenchmarkOptions<R>,
  config: RunConfig,
  plan: Plan,
  owner: RunOwner,
  leaseMs: number,
  budget: Budget | undefined,
  answered: { count: number }
) =>
  Effect.gen(function*() {
    const { finalAnswer, open, progress, runId } = plan
    const onEvent = options.onEvent ?? (() => Effect.void)
    yield* onEvent({
      _tag: "RunStarted",
      runId,
      resumed: options.resume === true || options.takeover === true,
      total: progress.total,
      alreadyDone: progress.done
    })
    const trees = yield* controlEnvironments(plan.control, runId, options.treesDir, open, config.concurrency)
    // The agent reads the record's settings whole; the final-answer mode is the run's own on resume.
    const questionOptions: RunQuestionOptions<R> & ControlAnswering = {
      prompts: options.prompts,
      summaryCache: makeSummaryCache(),
      ...agentSettings(config),
      finalAnswer,
      ...(options.extraTools === undefined ? {} : { extraTools: options.extraTools }),
      ...(options.retrySchedule === undefined ? {} : { retrySchedule: options.retrySchedule }),
      ...(yield* controlAnswering(plan.control, options))
    }
    const queue = yield* makeWorkQueue({
      runId,
      ownerId: owner.ownerId,
      questions: new Map(options.questions.map((question) => [question.questionId, question])),
      batch: claimBatch(config.concurrency),
      // Waiting on the last questions other workers hold: their worker's lease expiring (it died) or the
      // run completing ends the wait; asking every second keeps the idle worker's exit that close.
      poll: Math.min(1_000, Math.max(50, Math.floor(leaseMs / 6))),
      stopped: () => budget?.stopped === true
    })
    // No prices at all: no cost to say (an empty table would price nothing and read as unknown anyway).
    const prices = config.prices
    const answer = (question: Question) =>
      answerAndSave(
        runId,
        owner.ownerId,
        question,
        trees,
        questionOptions,
        onEvent,
        options.benchmarkFacts?.get(question.questionId),
        prices
      ).pipe(
        Effect.tap(({ saved }) => Effect.sync(() => saved && answered.count++))
      )
    const answerWithin = (question: Question) =>
      budget === undefined
        ? Effect.asVoid(answer(question))
        : Effect.suspend(() =>
          budget.tryStart()
            ? answer(question).pipe(
              Effect.onExit((exit) =>
                Effect.sync(() => budget.finish(Exit.isSuccess(exit) ? costOfCalls(exit.value.calls, prices ?? {}) : 0))
              ),
              Effect.asVoid
            )
            : Effect.void
        )
    const fiber = Effect.gen(function*() {
      while (true) {
        const next = yield* queue.take
        if (Option.isNone(next)) return
        yield* answerWithin(next.value)
      }
    })
    yield* Effect.all(Array.from({ length: config.concurrency }, () => fiber), {
      concurrency: "unbounded",
      discard: true
    })
  })

/**
 * Runs a benchmark: every selected question through the agent, `concurrency` at a time, each finished
 * question saved in one transaction with its steps and calls. The run's questions are a queue in the
 * store: this process claims a few at a time under its lease (owner, heartbeat, expiry) and saves
 * each once. On a store with one owner per run (SQLite) a second process on the same run is refused
 * while the lease is live and takes a stale run over; on a shared store (PostgreSQL) processes
 * started with the same run id are workers of one run, and a worker that dies leaves its questions
 * to the others once its lease expires. Interrupting it (Ctrl-C) stops new work, interrupts the
 * questions in flight and hands them back; finished questions stay saved, and the last worker out
 * marks the run (`completed`, `interrupted`, …). A question that fails unexpectedly is saved with
 * stop reason `error`. Fails on bad input (InferError, before the run starts), on a run another
 * process holds (RunStoreError `RunLeased`), when the store cannot be written (the run is marked
 * `failed` when it still can be), or when a role's endpoints stay unreachable for `breakerCalls`
 * attempts in a row (InferError `EndpointUnreachable`; the run is marked `failed`, the questions in
 * flight are handed back unsaved, and `--resume` continues once the endpoint is fixed).
 */
export const runBenchmark = Effect.fn(...workflowSpan(workflowNames.infer))(function*<R = never>(
  options: BenchmarkOptions<R>
) {
  // The run's record, built once from the options: stored with a new run, read whole from here on.
  const config = runConfigOf(options, (yield* Path.Path).resolve(options.treesDir))
  const owner = options.owner ?? (yield* thisProcess)
  const leaseMs = options.leaseMs ?? defaultLeaseMs
  const plan = yield* prepareRun(options, config, owner, leaseMs)
  const { runId } = plan
  const onEvent = options.onEvent ?? (() => Effect.void)
  const budget = yield* makeBudget(runId, options)
  const breaker = yield* makeBreaker(options.breakerCalls ?? defaultBreakerCalls)
  const answered = { count: 0 }
  const work = answerAll(options, config, plan, owner, leaseMs, budget, answered).pipe(
    withBreaker(breaker),
    Effect.scoped
  )
  // A tripped breaker fails the run, which interrupts the questions in flight (they stay unsaved).
  const outage = Effect.flatMap(
    breaker.tripped,
    (tripped) => new InferError({ reason: "EndpointUnreachable", message: outageMessage(tripped, runId) })
  )
  // The heartbeat lives exactly as long as the work: whichever ends first ends the other.
  let status = Option.none<RunStatus>()
  const alongside = Effect.all([
    heartbeat(runId, owner.ownerId, leaseMs),
    watchRun(runId, onEvent, Math.min(5_000, Math.max(1, Math.floor(leaseMs / 3))))
  ], { concurrency: "unbounded", discard: true })
  yield* Effect.raceFirst(Effect.raceFirst(work, outage), alongside).pipe(
    // Every fiber of the run says so on the progress line while the store rides out a lost database.
    Effect.locally(storeOutageListener, (notice) => onEvent({ _tag: "StoreUnreachable", database: notice.database })),
    // Runs on interruption too (Ctrl-C): the run is handed back, marked, either way.
    Effect.onExit((exit) =>
      Effect.map(releaseRun(runId, owner.ownerId, budget, exit), (released) => (status = released))
    )
  )
  const result: BenchmarkResult = {
    runId,
    answered: answered.count,
    skipped: plan.progress.done,
    ...(Option.isSome(status) ? { status: status.value } : {})
  }
  return result
})
