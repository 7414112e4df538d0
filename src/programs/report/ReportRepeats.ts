// Several runs of one question set (`vtree report --repeats R1 R2 R3`): how much the accuracy moves from run
// to run with nothing changed but the sampling, and how often every run gives the same answer. The spread
// is what a single run's difference must beat before it means anything. Pure; the CLI loads the runs.
import { outcomeOf } from "../../domain/Outcome.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import { formatCount, formatPercent } from "../../text/Format.js"
import { formatTable } from "./ReportText.js"

type Row = Pick<PredictionRow, "questionId" | "answer" | "options" | "prediction" | "correct">

export interface RepeatSide {
  readonly runId: string
  /** The database it was read from, for people. */
  readonly source: string
  readonly predictions: ReadonlyArray<Row>
}

export interface RepeatRun {
  readonly runId: string
  readonly source: string
  /** Questions the run saved, shared or not. */
  readonly saved: number
  /** Over the shared keyed questions: every one in the denominator, an unanswered one wrong. */
  readonly correct: number
  readonly keyed: number
  readonly accuracy: number | null
}

export interface Repeats {
  /** Questions every run saved: the runs are compared over these only. */
  readonly shared: number
  readonly runs: ReadonlyArray<RepeatRun>
  readonly mean: number | null
  /** Sample standard deviation (n − 1) of the runs' accuracies. */
  readonly sd: number | null
  readonly min: number | null
  readonly max: number | null
  /** Shared questions every run answered with the same letter (no answer counts as one answer). */
  readonly agreement: { readonly questions: number; readonly same: number; readonly share: number | null }
}

export const repeatsOf = (sides: ReadonlyArray<RepeatSide>): Repeats => {
  const byRun = sides.map((s) => new Map(s.predictions.map((p) => [p.questionId, p])))
  const shared = [...(byRun[0]?.keys() ?? [])].filter((id) => byRun.every((run) => run.has(id)))
  const runs = sides.map((side, i): RepeatRun => {
    let correct = 0
    let keyed = 0
    for (const id of shared) {
      const outcome = outcomeOf(byRun[i]!.get(id)!)
      if (outcome === "unscored") continue
      keyed += 1
      if (outcome === "correct") correct += 1
    }
    return {
      runId: side.runId,
      source: side.source,
      saved: side.predictions.length,
      correct,
      keyed,
      accuracy: keyed === 0 ? null : correct / keyed
    }
  })
  const values = runs.flatMap((r) => (r.accuracy === null ? [] : [r.accuracy]))
  const mean = values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length
  const same = shared.filter((id) => new Set(byRun.map((run) => run.get(id)!.prediction)).size === 1).length
  return {
    shared: shared.length,
    runs,
    mean,
    sd: mean === null || values.length < 2
      ? null
      : Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1)),
    min: values.length === 0 ? null : Math.min(...values),
    max: values.length === 0 ? null : Math.max(...values),
    agreement: { questions: shared.length, same, share: shared.length === 0 ? null : same / shared.length }
  }
}

export const renderRepeatsText = (r: Repeats): string =>
  [
    `Repeats: ${formatCount(r.runs.length)} runs over the ${
      formatCount(r.shared)
    } questions every run saved (strict accuracy: every keyed question counts, an unanswered one wrong)`,
    formatTable(
      ["Run", "Source", "Accuracy", "Correct/keyed", "Saved"],
      r.runs.map((x) => [
        x.runId,
        x.source,
        formatPercent(x.accuracy),
        `${formatCount(x.correct)}/${formatCount(x.keyed)}`,
        formatCount(x.saved)
      ]),
      [false, false, true, true, true]
    ),
    `Mean ${formatPercent(r.mean)} · SD ${r.sd === null ? "—" : `${(r.sd * 100).toFixed(1)} pts`} · min–max ${
      formatPercent(r.min)
    }–${formatPercent(r.max)}`,
    `Answered the same by every run: ${formatPercent(r.agreement.share)} (${formatCount(r.agreement.same)}/${
      formatCount(r.agreement.questions)
    })`
  ].join("\n\n") + "\n"

export const renderRepeatsJson = (r: Repeats): string => JSON.stringify(r, null, 2) + "\n"
