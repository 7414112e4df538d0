// Kept apart from BuildTree.ts so the CLI can name it without loading the builder.
import { Schema } from "effect"

export const BuildErrorReason = Schema.Literal(
  // a flag out of range, or flags that contradict each other
  "BadOption",
  // an input that is not a usable video, a subtitle file that does not parse, two videos with one id
  "BadInput",
  // the output folder, or a tree inside it, cannot be written
  "Unwritable",
  // a tree folder vtree did not make, or a path that would leave --out (through a symlink): nothing is written
  "Refused",
  // a model endpoint failed after its retries; finished calls are checkpointed, so a rerun resumes
  "ProviderFailed"
)
export type BuildErrorReason = typeof BuildErrorReason.Type

/** Why a build stopped; `message` is one line naming the file or flag and the fix. */
export class BuildError extends Schema.TaggedError<BuildError>()("BuildError", {
  reason: BuildErrorReason,
  message: Schema.String
}) {}
