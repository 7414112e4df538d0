// Open-ended answers as their judges scored them: accuracy per judge, the majority (ties stated, never
// scored), and how far the judges agree (pairwise and Fleiss' κ). Pure: the rows in, the summary out;
// `vtree judge` (programs/judge) wrote the verdicts.
import { fleissKappa, type PairAgreement, pairAgreement } from "../../domain/Agreement.js"
import { formatUsd } from "../../domain/Cost.js"
import { answerTextOf, isOpenEnded, type JudgementRow, majorityOf } from "../../domain/Judgement.js"
import { type Accuracy, accuracyOfOutcomes } from "../../domain/Outcome.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import { formatCount, formatInterval, formatPercent } from "../../text/Format.js"
import { escapeHtml as esc } from "../../text/Html.js"

/** How a judged question scores: `unscored` when no judge decided it (none judged, all failed, or a tie). */
export type JudgedOutcome = "correct" | "wrong" | "unscored"

type Judgeable = Pick<PredictionRow, "questionId" | "options" | "answer" | "prediction" | "answerText"> & {
  readonly finishedAt?: number
}
type Verdicts = ReadonlyArray<
  Pick<JudgementRow, "questionId" | "judgeModel" | "verdict"> & { readonly judgedAt?: number }
>

/**
 * The verdicts on the answers as they stand: one given before its question was saved last (asked again after
 * judging) judged another answer, and counts for nothing until `vtree judge` runs again.
 */
const current = <V extends Verdicts[number]>(predictions: ReadonlyArray<Judgeable>, verdicts: ReadonlyArray<V>) => {
  const savedAt = new Map(predictions.map((p) => [p.questionId, p.finishedAt]))
  return verdicts.filter((v) => {
    const saved = savedAt.get(v.questionId)
    return saved === undefined || v.judgedAt === undefined || v.judgedAt >= saved
  })
}

/**
 * The outcome of each open-ended question of `predictions` (others are left out) by the majority of
 * `verdicts` (pass one judge's to score by that judge alone), those judged before the question was last saved
 * left out. Unjudged, failed or tied: `unscored`, never
 * wrong. A question without a reference is unscored; one the agent left unanswered is wrong — an answer
 * never given is not the reference, and stays in the denominator as an unanswered question does.
 */
export const judgedOutcomes = (
  predictions: ReadonlyArray<Judgeable>,
  verdicts: Verdicts
): Map<string, JudgedOutcome> => {
  const byQuestion = new Map<string, Array<JudgementRow["verdict"]>>()
  for (const v of current(predictions, verdicts)) {
    byQuestion.set(v.questionId, [...(byQuestion.get(v.questionId) ?? []), v.verdict])
  }
  const outcomes = new Map<string, JudgedOutcome>()
  for (const p of predictions) {
    if (!isOpenEnded(p)) continue
    if (p.answer === null) outcomes.set(p.questionId, "unscored")
    else if (answerTextOf(p) === null) outcomes.set(p.questionId, "wrong")
    else {
      const majority = majorityOf(byQuestion.get(p.questionId) ?? [])
      outcomes.set(p.questionId, majority === "correct" ? "correct" : majority === "incorrect" ? "wrong" : "unscored")
    }
  }
  return outcomes
}

export interface JudgeLine extends Accuracy {
  readonly judge: string
  /** Verdicts this judge could not give (call failed, reply unreadable). */
  readonly failed: number
  /** Verdicts taken from the cache (no call). */
  readonly cached: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** USD as priced when judged; null when any verdict's price was unknown. */
  readonly costUsd: number | null
}

export interface JudgeSummary {
  /** Open-ended questions in the run (no options: judged against their reference). */
  readonly openEnded: number
  readonly judges: ReadonlyArray<JudgeLine>
  /** The majority of every judge's verdict; a tie is unscored. */
  readonly majority: Accuracy
  /** Questions whose judges split evenly: stated, never scored. */
  readonly ties: number
  readonly agreement: {
    readonly pairs: ReadonlyArray<{ readonly a: string; readonly b: string } & PairAgreement>
    /** Over the questions every judge gave a verdict on; null with fewer than two judges or when undefined. */
    readonly fleissKappa: number | null
    readonly items: number
  }
}

const sumOrNull = (values: ReadonlyArray<number | null>): number | null =>
  values.some((v) => v === null) ? null : values.reduce<number>((sum, v) => sum + (v ?? 0), 0)

/** The judges' view of a run; null when the run has no open-ended question and no verdict. */
export const judgeSummary = (
  predictions: ReadonlyArray<Judgeable>,
  judgements: ReadonlyArray<JudgementRow>
): JudgeSummary | null => {
  const open = predictions.filter(isOpenEnded)
  if (open.length === 0 && judgements.length === 0) return null
  const openIds = new Set(open.map((p) => p.questionId))
  const rows = current(open, judgements).filter((j) => openIds.has(j.questionId))
  const judges = [...new Set(rows.map((j) => j.judgeModel))].sort()
  const labels = new Map(
    judges.map((judge) => [
      judge,
      new Map(rows.filter((j) => j.judgeModel === judge && j.verdict !== null).map((j) => [j.questionId, j.verdict!]))
    ])
  )
  const byQuestion = new Map<string, Array<JudgementRow["verdict"]>>()
  for (const j of rows) byQuestion.set(j.questionId, [...(byQuestion.get(j.questionId) ?? []), j.verdict])
  const everyJudge = open.filter((p) => judges.every((judge) => labels.get(judge)!.has(p.questionId)))
  return {
    openEnded: open.length,
    judges: judges.map((judge) => {
      const own = rows.filter((j) => j.judgeModel === judge)
      return {
        judge,
        ...accuracyOfOutcomes(judgedOutcomes(open, own).values()),
        failed: own.filter((j) => j.verdict === null).length,
        cached: own.filter((j) => j.cached).length,
        promptTokens: own.reduce((sum, j) => sum + j.promptTokens, 0),
        completionTokens: own.reduce((sum, j) => sum + j.completionTokens, 0),
        costUsd: sumOrNull(own.map((j) => j.costUsd))
      }
    }),
    majority: accuracyOfOutcomes(judgedOutcomes(open, rows).values()),
    ties: [...byQuestion.values()].filter((verdicts) => majorityOf(verdicts) === "tie").length,
    agreement: {
      pairs: judges.flatMap((a, i) =>
        judges.slice(i + 1).map((b) => ({ a, b, ...pairAgreement(labels.get(a)!, labels.get(b)!) }))
      ),
      fleissKappa: judges.length < 2 ? null : fleissKappa(everyJudge.map((p) => {
        const verdicts = judges.map((judge) => labels.get(judge)!.get(p.questionId))
        return [verdicts.filter((v) => v === "correct").length, verdicts.filter((v) => v === "incorrect").length]
      })),
      items: judges.length < 2 ? 0 : everyJudge.length
    }
  }
}

const judgeHeaders = ["Judge", "Correct", "Wrong", "Unscored", "Failed", "Cached", "Accuracy", "95% CI", "Cost (USD)"]

const judgeRows = (summary: JudgeSummary): ReadonlyArray<ReadonlyArray<string>> => [
  ...summary.judges.map((j) => [
    j.judge,
    formatCount(j.correct),
    formatCount(j.wrong),
    formatCount(j.unscored),
    formatCount(j.failed),
    formatCount(j.cached),
    formatPercent(j.accuracy),
    formatInterval(j.interval),
    formatUsd(j.costUsd)
  ]),
  [
    "majority",
    formatCount(summary.majority.correct),
    formatCount(summary.majority.wrong),
    formatCount(summary.majority.unscored),
    "",
    "",
    formatPercent(summary.majority.accuracy),
    formatInterval(summary.majority.interval),
    ""
  ]
]

const questions = (summary: JudgeSummary): string =>
  `${formatCount(summary.openEnded)} question${summary.openEnded === 1 ? "" : "s"}`

/** One line: ties, pairwise agreement and Fleiss' κ. */
export const agreementLine = (summary: JudgeSummary): string => {
  const pairs = summary.agreement.pairs.map((p) =>
    `${p.a} / ${p.b} ${formatPercent(p.share)} (${formatCount(p.agree)}/${formatCount(p.compared)})`
  )
  const kappa = summary.agreement.fleissKappa
  return `Ties (judges split evenly; unscored) ${formatCount(summary.ties)}` +
    (pairs.length === 0 ? "" : ` · agreement ${pairs.join(", ")}`) +
    (summary.judges.length < 2
      ? ""
      : ` · Fleiss' κ ${kappa === null ? "—" : kappa.toFixed(3)} over ${
        formatCount(summary.agreement.items)
      } questions`)
}

/** The text report's section (none when the run has nothing open-ended); `table` is ReportText's formatTable. */
export const judgesText = (
  summary: JudgeSummary | null,
  table: (
    headers: ReadonlyArray<string>,
    rows: ReadonlyArray<ReadonlyArray<string>>,
    right: ReadonlyArray<boolean>
  ) => string
): ReadonlyArray<string> => {
  if (summary === null) return []
  const title = `Open-ended answers judged (${questions(summary)})`
  if (summary.judges.length === 0) {
    return [`${title}: not judged yet, all unscored — run \`vtree judge\` with VTREE_JUDGE_MODEL set`]
  }
  return [
    `${title}\n` + table(judgeHeaders, judgeRows(summary), judgeHeaders.map((_, i) => i > 0)) + "\n" +
    agreementLine(summary)
  ]
}

/** The html report's section. */
export const judgesHtml = (summary: JudgeSummary | null): string => {
  if (summary === null) return ""
  const title = `<h2 id="judges">Open-ended answers judged (${questions(summary)})</h2>`
  if (summary.judges.length === 0) {
    return `\n${title}\n<p>Not judged yet: all unscored. Run <code>vtree judge</code>.</p>`
  }
  const head = `<tr>${judgeHeaders.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>`
  const body = judgeRows(summary).map((row) =>
    `<tr>${row.map((cell, i) => (i === 0 ? `<td>${esc(cell)}</td>` : `<td class="n">${esc(cell)}</td>`)).join("")}</tr>`
  ).join("")
  return `\n${title}\n<table>${head}${body}</table>\n<p>${esc(agreementLine(summary))}</p>`
}
