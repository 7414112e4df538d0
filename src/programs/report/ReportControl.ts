// Control runs in reports (`vtree infer --control`): a control says what it is in its header and settings, a
// chance control its expected accuracy beside the drawn one, and `report --compare RUN CONTROL` what the video
// adds over the control, with a paired 95 % interval. Pure.
import { type ControlKind, controlLabels } from "../../domain/Control.js"
import { outcomeOf } from "../../domain/Outcome.js"
import { runControl, type StoredRunConfig } from "../../domain/RunConfig.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import { type Interval, z95 } from "../../domain/Stats.js"
import { countOf, formatCount, formatPercent } from "../../text/Format.js"

// Summary.ts and RunSettings.ts read this module: their row and setting shapes, restated, keep it below them.
type ReportPrediction = Pick<PredictionRow, "answer" | "prediction" | "correct" | "options">
interface RunSetting {
  readonly name: string
  readonly value: string
}

type Control = Exclude<ControlKind, "none">

export interface ControlSummary {
  readonly kind: Control
  /** The seed of a shuffled pairing or a chance draw; null for blind. */
  readonly seed: number | null
  /** A shuffled control's videos, each answered over another's tree; null otherwise. */
  readonly pairedVideos: number | null
  /**
   * A chance control's expected accuracy: the mean of 1 / option count over the keyed questions (what the draw
   * scores on average, whatever the seed); null otherwise.
   */
  readonly expectedAccuracy: number | null
}

/** What a control run is, from its record; null for a run that is no control. */
export const controlSummary = (
  config: StoredRunConfig,
  predictions: ReadonlyArray<ReportPrediction>
): ControlSummary | null => {
  const kind = runControl(config)
  if (kind === "none") return null
  const keyed = predictions.filter((p) => outcomeOf(p) !== "unscored" && p.options.length > 0)
  return {
    kind,
    seed: config.controlSeed ?? null,
    pairedVideos: config.controlPairs === undefined ? null : Object.keys(config.controlPairs).length,
    expectedAccuracy: kind !== "chance" || keyed.length === 0
      ? null
      : keyed.reduce((sum, p) => sum + 1 / p.options.length, 0) / keyed.length
  }
}

/** The settings lines of a control run (appended to RunSettings.runSettings). */
export const controlSettings = (config: StoredRunConfig): ReadonlyArray<RunSetting> => {
  const kind = runControl(config)
  if (kind === "none") return []
  return [
    { name: "control", value: kind },
    ...(config.controlSeed === undefined ? [] : [{ name: "control seed", value: String(config.controlSeed) }]),
    ...(config.controlPairs === undefined
      ? []
      : [{ name: "control pairs", value: countOf(Object.keys(config.controlPairs).length, "video") }])
  ]
}

/** The header line of a control run's report; none for another run. */
export const controlLines = (
  summary: { readonly control: ControlSummary | null; readonly overall: { readonly accuracy: number | null } }
): ReadonlyArray<string> => {
  const control = summary.control
  if (control === null) return []
  const seed = control.seed === null ? "" : ` · seed ${control.seed}`
  const pairs = control.pairedVideos === null ? "" : ` · ${countOf(control.pairedVideos, "video")} paired`
  const expected = control.kind !== "chance"
    ? ""
    : ` · expected accuracy ${formatPercent(control.expectedAccuracy)} (mean of 1/options over the keyed), drawn ${
      formatPercent(summary.overall.accuracy)
    }`
  return [`Control run: ${controlLabels[control.kind]}${seed}${pairs}${expected}`]
}

// ---- report --compare RUN CONTROL

export interface ControlEffect {
  /** Which side is the control. */
  readonly side: "A" | "B"
  readonly kind: Control
  readonly runId: string
  readonly controlRunId: string
  /** Keyed questions both answered. */
  readonly questions: number
  /** Run − control in accuracy points (0–1), over those questions. */
  readonly delta: number
  /** Its 95 % interval from the per-question paired differences (normal approximation); null under two questions. */
  readonly interval: Interval | null
  /**
   * Its 95 % interval from the comparison's paired bootstrap over videos (run − control), which respects that a
   * video's questions move together; null until the comparison's bootstrap is known (see withClusteredInterval).
   */
  readonly clustered: Interval | null
}

/**
 * The effect with the bootstrap's interval, turned to read run − control: the bootstrap measures B − A, so when
 * the control is B the interval is negated and its ends swapped.
 */
export const withClusteredInterval = (
  effect: ControlEffect | null,
  bootstrapBMinusA: Interval | null
): ControlEffect | null =>
  effect === null || bootstrapBMinusA === null ? effect : {
    ...effect,
    clustered: effect.side === "A"
      ? bootstrapBMinusA
      : { low: -bootstrapBMinusA.high, high: -bootstrapBMinusA.low }
  }

/**
 * The accuracy difference of paired per-question outcomes (1 right, 0 not) and its 95 % interval, mean ± z·sd/√n
 * of the differences. Null when nothing is paired.
 */
export const pairedDifference = (
  run: ReadonlyArray<boolean>,
  control: ReadonlyArray<boolean>
): { readonly delta: number; readonly interval: Interval | null } | null => {
  const n = Math.min(run.length, control.length)
  if (n === 0) return null
  const differences = Array.from({ length: n }, (_, i) => Number(run[i]) - Number(control[i]))
  const mean = differences.reduce((sum, d) => sum + d, 0) / n
  if (n < 2) return { delta: mean, interval: null }
  const variance = differences.reduce((sum, d) => sum + (d - mean) ** 2, 0) / (n - 1)
  const half = z95 * Math.sqrt(variance / n)
  // A difference of two accuracies lies in [−1, 1]; the normal approximation can step past it on few questions.
  return { delta: mean, interval: { low: Math.max(-1, mean - half), high: Math.min(1, mean + half) } }
}

/**
 * What the video adds when exactly one side of a comparison is a control: the other run's accuracy minus the
 * control's, paired over the keyed questions both answered (`a[i]` pairs with `b[i]`). Null otherwise.
 */
export const controlEffect = (
  sideA: { readonly runId: string; readonly control?: ControlKind | undefined },
  sideB: { readonly runId: string; readonly control?: ControlKind | undefined },
  a: ReadonlyArray<ReportPrediction>,
  b: ReadonlyArray<ReportPrediction>
): ControlEffect | null => {
  const kindA = sideA.control ?? "none"
  const kindB = sideB.control ?? "none"
  if ((kindA === "none") === (kindB === "none")) return null
  const side = kindA === "none" ? "B" : "A"
  const [run, control] = side === "B" ? [a, b] : [b, a]
  const keyed = run.flatMap((p, i) => outcomeOf(p) === "unscored" ? [] : [i])
  const difference = pairedDifference(
    keyed.map((i) => outcomeOf(run[i]!) === "correct"),
    keyed.map((i) => outcomeOf(control[i]!) === "correct")
  )
  if (difference === null) return null
  return {
    side,
    kind: (side === "B" ? kindB : kindA) as Control,
    runId: side === "B" ? sideA.runId : sideB.runId,
    controlRunId: side === "B" ? sideB.runId : sideA.runId,
    questions: keyed.length,
    ...difference,
    clustered: null
  }
}

const points = (value: number): string =>
  `${value > 0 ? "+" : value < 0 ? "−" : "±"}${Math.abs(value * 100).toFixed(1)}`

const effectSubject: Readonly<Record<Control, string>> = {
  blind: "The video adds",
  shuffled: "The question's own video adds",
  chance: "The video and the model add"
}

const effectAgainst: Readonly<Record<Control, string>> = {
  blind: "over what the model answers without it",
  shuffled: "over another video's tree",
  chance: "over chance"
}

/** `The video adds +12.3 points (95 % interval +5.0 to +19.6) over …`: the line `--compare` shows. */
export const controlEffectLine = (effect: ControlEffect | null): ReadonlyArray<string> =>
  effect === null ? [] : [
    `${effectSubject[effect.kind]} ${points(effect.delta)} points (95 % interval ${
      effect.interval === null ? "—" : `${points(effect.interval.low)} to ${points(effect.interval.high)}`
    }, paired over ${formatCount(effect.questions)} keyed questions${
      effect.clustered === null
        ? ""
        : `; ${points(effect.clustered.low)} to ${points(effect.clustered.high)} by the bootstrap over videos`
    }) ${effectAgainst[effect.kind]}: run ${effect.runId} ` +
    `against its ${effect.kind} control ${effect.controlRunId} (${effect.side}).`
  ]
