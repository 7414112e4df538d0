// Control runs: what a score is measured against. A control run is an ordinary run whose record says which
// control it is; `none` is every other run.
import { Schema } from "effect"

/**
 * `blind`: each question from its text and options alone (one agent call, no tree, no tools); `shuffled`: the
 * agent over the tree of another video of similar duration; `chance`: a seeded uniform draw among the options.
 */
export const ControlKind = Schema.Literal("none", "blind", "shuffled", "chance")
export type ControlKind = typeof ControlKind.Type

/** The kinds `vtree infer --control` takes. */
export const controlKinds = ["blind", "shuffled", "chance"] as const

/** A shuffled control's pairing: each video of the run → the video whose tree answers its questions. */
export const ControlPairs = Schema.Record({ key: Schema.String, value: Schema.String })
export type ControlPairs = typeof ControlPairs.Type

/** The seed of a shuffled pairing or a chance draw when none is given. */
export const defaultControlSeed = 1

/** How a control is named in a header, a table or a settings line. */
export const controlLabels: Readonly<Record<Exclude<ControlKind, "none">, string>> = {
  blind: "blind control (question and options alone, no video)",
  shuffled: "shuffled control (another video's tree)",
  chance: "chance control (seeded uniform draw, no model)"
}
