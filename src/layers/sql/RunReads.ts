// Reading runs back: a run with its owners' claims and its queue's progress (a `running` run nobody
// holds reads `stale`), the list of runs, and a whole run for the report.
import { Array as Arr, Effect, Option } from "effect"
import type { RunClaim, RunProgress, RunRow, RunState, RunStatus } from "../../domain/RunRecord.js"
import type { LoadedRun, RunStoreShape } from "../../services/RunStore.js"
import type { AnswerRepository } from "./AnswerRepository.js"
import { readDatabaseNow } from "./DbClock.js"
import type { QueueRepository } from "./QueueRepository.js"
import { type RunStored, withoutRunId } from "./Rows.js"
import type { RunFailures } from "./RunFailures.js"
import type { RunRepository } from "./RunRepository.js"
import type { StoreContext } from "./StoreContext.js"

/** `stale`: stored as running, but nobody holds a live claim (the owner died without closing the run). */
export const runState = (status: RunStatus, claims: ReadonlyArray<RunClaim>, now: number): RunState =>
  status === "running" && !claims.some((claim) => claim.expiresAt > now) ? "stale" : status

/** The live claim heard from last, else the newest expired one. */
const leadingClaim = (claims: ReadonlyArray<RunClaim>, now: number): RunClaim | null =>
  claims.find((claim) => claim.expiresAt > now) ?? claims[0] ?? null

const toRunRow = (
  stored: RunStored,
  claims: ReadonlyArray<RunClaim>,
  progress: RunProgress | null,
  now: number
): RunRow => ({
  ...stored,
  status: runState(stored.status, claims, now),
  claim: leadingClaim(claims, now),
  claims,
  progress
})

export const runReads = (
  { guarded, sql }: StoreContext,
  runs: RunRepository,
  queue: QueueRepository,
  answers: AnswerRepository,
  failures: Pick<RunFailures, "notFound">
) => {
  const { notFound } = failures
  const databaseNow = readDatabaseNow(sql)

  const readRun = (runId: string) =>
    Effect.gen(function*() {
      const stored = yield* runs.findRun(runId)
      if (Option.isNone(stored)) return Option.none<RunRow>()
      // Live or stale by the database's clock, as the leases are.
      const now = yield* databaseNow
      const claims = (yield* runs.claimsOf(runId)).map(withoutRunId)
      const [progress] = yield* queue.progressOf(runId)
      return Option.some(toRunRow(stored.value, claims, progress === undefined ? null : withoutRunId(progress), now))
    })

  const getRun: RunStoreShape["getRun"] = Effect.fn("RunReads.getRun")(function*(runId) {
    return yield* readRun(runId)
  }, guarded("reading the run"))

  const listRuns: RunStoreShape["listRuns"] = Effect.gen(function*() {
    const rows = yield* runs.allRuns(undefined)
    const now = yield* databaseNow
    const claims = Arr.groupBy(yield* runs.claimsOf(null), (claim) => claim.runId)
    const progress = new Map(
      (yield* queue.progressOf(null)).map((row) => [row.runId, withoutRunId(row)])
    )
    return rows.map((row) =>
      toRunRow(row, (claims[row.runId] ?? []).map(withoutRunId), progress.get(row.runId) ?? null, now)
    )
  }).pipe(guarded("listing runs"), Effect.withSpan("RunReads.listRuns"))

  const runTallies: RunStoreShape["runTallies"] = answers.tallies().pipe(
    guarded("counting the runs' answers"),
    Effect.withSpan("RunReads.runTallies")
  )

  const finishedQuestionIds: RunStoreShape["finishedQuestionIds"] = Effect.fn("RunReads.finishedQuestionIds")(
    function*(runId, options) {
      const rows = yield* answers.questionIds({ runId, exceptErrors: options?.exceptErrors === true })
      return new Set(rows.map((row) => row.questionId))
    },
    guarded("reading finished questions")
  )

  const loadRun: RunStoreShape["loadRun"] = Effect.fn("RunReads.loadRun")(function*(runId, options) {
    const run = yield* readRun(runId)
    if (Option.isNone(run)) return yield* notFound(runId)
    // One read transaction, so a run being written meanwhile is seen at a single point in time.
    return yield* sql.withTransaction(Effect.gen(function*() {
      const loaded: LoadedRun = {
        run: run.value,
        predictions: yield* answers.predictionsOf(runId),
        steps: options?.includeSteps === false ? [] : yield* answers.stepsOf(runId),
        calls: yield* answers.callsOf(runId)
      }
      return loaded
    }))
  }, guarded("loading the run"))

  return { readRun, getRun, listRuns, runTallies, finishedQuestionIds, loadRun }
}

export type RunReads = ReturnType<typeof runReads>
