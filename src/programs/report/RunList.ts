// `vtree runs`: one line per run of a database, from the runs' rows and the counts the store makes of
// their predictions (no run is loaded). Pure.
import type { ControlKind } from "../../domain/Control.js"
import type { BenchmarkName } from "../../domain/Question.js"
import { runControl } from "../../domain/RunConfig.js"
import type { RunRow, RunTally } from "../../domain/RunRecord.js"
import { formatCount, formatDuration, formatPercent } from "../../text/Format.js"
import { benchmarkLabels } from "../benchmarks/StoredResults.js"
import { formatTable } from "./ReportText.js"
import { agentModelOf } from "./RunSettings.js"

export interface RunListing {
  readonly runId: string
  /** As `vtree report` reads it: `stale` for a running run nobody holds. */
  readonly status: string
  readonly benchmark: BenchmarkName
  readonly agentModel: string | null
  readonly saved: number
  /** The run's question set; null when the run recorded none. */
  readonly total: number | null
  readonly keyed: number
  readonly correct: number
  /** correct / keyed; null when no saved question has a key. */
  readonly accuracy: number | null
  /** ISO 8601. */
  readonly startedAt: string
  /** finished − started; for a run that never finished, up to its last saved question (as the report). */
  readonly wallTimeMs: number | null
  /** The control the run is (`vtree infer --control`); absent for a run that is none. */
  readonly control?: Exclude<ControlKind, "none">
}

const controlOf = (run: RunRow): Pick<RunListing, "control"> => {
  const kind = runControl(run.config)
  return kind === "none" ? {} : { control: kind }
}

/** Newest first, as the store lists them. */
export const listRuns = (runs: ReadonlyArray<RunRow>, tallies: ReadonlyArray<RunTally>): ReadonlyArray<RunListing> => {
  const tallyOf = new Map(tallies.map((t) => [t.runId, t]))
  return runs.map((run) => {
    const tally = tallyOf.get(run.runId)
    const saved = tally?.saved ?? 0
    const keyed = tally?.keyed ?? 0
    const correct = tally?.correct ?? 0
    const end = run.finishedAt ?? tally?.lastSavedAt ?? null
    return {
      runId: run.runId,
      status: run.status,
      benchmark: run.config.benchmark,
      agentModel: agentModelOf(run.config),
      saved,
      total: run.progress?.total ?? run.selection?.count ?? run.config.questions ?? null,
      keyed,
      correct,
      accuracy: keyed === 0 ? null : correct / keyed,
      startedAt: new Date(run.startedAt).toISOString(),
      wallTimeMs: end === null ? null : Math.max(0, end - run.startedAt),
      ...controlOf(run)
    }
  })
}

export const renderRunsText = (runs: ReadonlyArray<RunListing>): string =>
  formatTable(
    ["Run", "Status", "Benchmark", "Agent model", "Saved", "Accuracy", "Started", "Wall time"],
    runs.map((r) => [
      r.runId,
      r.status,
      benchmarkLabels[r.benchmark] + (r.control === undefined ? "" : ` · ${r.control} control`),
      r.agentModel ?? "—",
      r.total === null ? formatCount(r.saved) : `${formatCount(r.saved)}/${formatCount(r.total)}`,
      formatPercent(r.accuracy),
      r.startedAt,
      formatDuration(r.wallTimeMs)
    ]),
    [false, false, false, false, true, true, false, true]
  ) + "\n"

export const renderRunsJson = (runs: ReadonlyArray<RunListing>): string => JSON.stringify(runs, null, 2) + "\n"
