import { Schema } from "effect"

export const InferErrorReason = Schema.Literal(
  "TreesMissing",
  "TreeMissing",
  "NoQuestions",
  "NothingToResume",
  "BadOption",
  // `--resume` with another question set than the run's: a run is its question set, or its figures mix two.
  "SelectionChanged",
  // A model endpoint refused the configuration itself (credentials, model name): every further
  // question would fail the same way, so the run stops instead of burning through them.
  "ProviderRejected",
  // A role's endpoints could not be reached for many calls in a row (a closed port, a wrong host): the
  // run's breaker stopped it before every question burned its retries.
  "EndpointUnreachable"
)
export type InferErrorReason = typeof InferErrorReason.Type

/**
 * Bad input found before the run starts, or a configuration a model endpoint refused during it;
 * `message` is one line naming the problem and the fix.
 */
export class InferError extends Schema.TaggedError<InferError>()("InferError", {
  reason: InferErrorReason,
  message: Schema.String
}) {}
