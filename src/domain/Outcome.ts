// How a question ended, and what a set of endings amounts to: one vocabulary for the benchmark modules'
// headlines and the run report (its text, json and html), one tally, one accuracy rule.
import { type Interval, wilsonInterval } from "./Stats.js"

/**
 * Every question ends in exactly one outcome: correct, wrong (an option letter that is not the key),
 * unanswered (no option letter could be read), or unscored (the question has no key: a test split,
 * EgoSchema outside its subset; or it is open-ended, without options, scored by judges only).
 */
export type Outcome = "correct" | "wrong" | "unanswered" | "unscored"

// Without a key nothing can be right or wrong; a null prediction is unanswered whatever the stored flag says.
// An open-ended question's answer is free text no letter rule can score: unscored until judged, never wrong.
export const outcomeOf = (
  p: {
    readonly answer: string | null
    readonly prediction: string | null
    readonly correct: boolean
    readonly options: ReadonlyArray<string>
  }
): Outcome =>
  p.answer === null || p.options.length === 0
    ? "unscored"
    : p.prediction === null
    ? "unanswered"
    : p.correct
    ? "correct"
    : "wrong"

/**
 * Accuracy is correct / total over the keyed questions: an unanswered question earns nothing and stays in
 * the denominator (Video-MME's own script drops it), counted apart from wrong; an unscored one is counted
 * apart from both.
 */
export interface Accuracy {
  readonly correct: number
  readonly wrong: number
  readonly unanswered: number
  /** correct + wrong + unanswered: the keyed questions, the accuracy's denominator. */
  readonly total: number
  /** Questions without a key: run and exported, never scored. */
  readonly unscored: number
  /** correct / total, or null when there is nothing to divide. */
  readonly accuracy: number | null
  /** The 95 % Wilson score interval of the accuracy; null when there is nothing to divide. */
  readonly interval: Interval | null
}

/** The accuracy of one group of questions along an axis (a task type, a duration, …). */
export interface GroupAccuracy extends Accuracy {
  readonly key: string
}

export type Tally = Record<Outcome, number>

export const emptyTally = (): Tally => ({ correct: 0, wrong: 0, unanswered: 0, unscored: 0 })

export const accuracyOf = (tally: Tally): Accuracy => {
  const total = tally.correct + tally.wrong + tally.unanswered
  return {
    ...tally,
    total,
    accuracy: total === 0 ? null : tally.correct / total,
    interval: wilsonInterval(tally.correct, total)
  }
}

/** The accuracy of any set of outcomes, with its interval. */
export const accuracyOfOutcomes = (outcomes: Iterable<Outcome>): Accuracy => {
  const tally = emptyTally()
  for (const outcome of outcomes) tally[outcome] += 1
  return accuracyOf(tally)
}
