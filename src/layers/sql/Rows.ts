// How a run's records are stored: the domain schemas (src/domain/RunRecord.ts), with the columns SQL
// holds otherwise — JSON text, 0/1 flags, NULL for a count nobody reported — and the columns a later
// migration added, read as absent from an older database opened as it is (read-only). A column's
// name is its field's in snake_case (the store's client translates names both ways); a JSON column
// is named for its field plus `_json`.
import * as Model from "@effect/sql/Model"
import { Option, Schema, Struct } from "effect"
import { AnswerForm } from "../../domain/AnswerForm.js"
import { ReplyShape } from "../../domain/Protocol.js"
import { BenchmarkFacts } from "../../domain/Question.js"
import { StoredRunConfigJson } from "../../domain/RunConfig.js"
import {
  CallRow,
  PredictionRow,
  ReplyShapeCounts,
  RunClaim,
  RunProgress,
  RunRow,
  RunSelection,
  RunStatus,
  StepInput
} from "../../domain/RunRecord.js"

/**
 * A value nobody may have reported: NULL in SQL, an absent field in the row. Written as NULL, never
 * left out: a batch INSERT takes its columns from its first row, so every row names the same ones.
 */
const NullWhenAbsent = <A>(schema: Schema.Schema<A>) =>
  Schema.optionalToOptional(Schema.NullOr(schema), schema, {
    decode: (stored) => Option.flatMap(stored, Option.fromNullable),
    encode: (value) => Option.some(Option.getOrNull(value))
  })

/** NullWhenAbsent for a field whose domain type holds null too: written NULL whether null or absent. */
const NullReadAbsent = <A>(schema: Schema.Schema<A>) =>
  Schema.optionalToOptional(Schema.NullOr(schema), Schema.NullOr(schema), {
    decode: (stored) => Option.filter(stored, (value) => value !== null),
    encode: (value) => Option.some(Option.getOrNull(value))
  })

/** `runs`, as written and read (claims and progress are read beside it). */
export const RunStored = Schema.Struct({
  ...Struct.pick(RunRow.fields, "runId", "startedAt", "finishedAt"),
  status: RunStatus,
  // Written from toJsonValue's copy, so it holds no secret; read as any version of vtree wrote it.
  config: Schema.propertySignature(StoredRunConfigJson).pipe(Schema.fromKey("configJson")),
  selection: Schema.optionalWith(Schema.NullOr(Schema.parseJson(RunSelection)), { default: () => null }).pipe(
    Schema.fromKey("selectionJson")
  )
})
export type RunStored = typeof RunStored.Type

export const ClaimStored = Schema.Struct({ runId: Schema.String, ...RunClaim.fields })

export const ProgressStored = Schema.Struct({ runId: Schema.String, ...RunProgress.fields })

/** A claim or progress row of one run, without the run's id. */
export const withoutRunId = <A extends { readonly runId: string }>({ runId: _, ...rest }: A): Omit<A, "runId"> => rest

/** `predictions`, as read. */
export const PredictionStored = Schema.Struct({
  ...PredictionRow.fields,
  options: Schema.propertySignature(Schema.parseJson(PredictionRow.fields.options)).pipe(Schema.fromKey("optionsJson")),
  correct: Model.BooleanFromNumber,
  cachedPromptTokens: NullWhenAbsent(Schema.Number),
  reasoningTokens: NullWhenAbsent(Schema.Number),
  replyShapes: Schema.optionalWith(Schema.parseJson(ReplyShapeCounts), { default: () => ({}) }).pipe(
    Schema.fromKey("replyShapesJson")
  ),
  worker: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  // 1 reads as `forced: true`; 0, and a database read as it is before 0009 added the column, as absent,
  // the domain row's "not forced". Always written, 0 or 1: a batch INSERT names the same columns per row.
  forced: Schema.optionalToOptional(Schema.Literal(0, 1), Schema.Boolean, {
    decode: (stored) => Option.as(Option.filter(stored, (flag) => flag === 1), true),
    encode: (value) => Option.some(Option.getOrElse(value, () => false) ? 1 as const : 0 as const)
  }),
  // NULL (rows written before 0011, and nothing submitted) reads as absent, like the counts nobody reported.
  answerText: NullReadAbsent(Schema.String),
  answerForm: NullReadAbsent(AnswerForm),
  // NULL (rows written before 0008, or without facts) reads as absent, like the counts nobody reported.
  benchmark: Schema.optionalToOptional(
    Schema.NullOr(Schema.parseJson(BenchmarkFacts)),
    Schema.NullOr(Schema.typeSchema(BenchmarkFacts)),
    {
      decode: (stored) => Option.flatMap(stored, Option.fromNullable),
      encode: (value) => Option.some(Option.getOrNull(value))
    }
  ).pipe(Schema.fromKey("benchmarkJson"))
})

export const PredictionInsert = Schema.Struct({ runId: Schema.String, ...PredictionStored.fields })

// A handful of fixed words, comma-separated: read back without JSON.
const ShapeList = Schema.transform(Schema.String, Schema.Array(ReplyShape), {
  strict: false,
  decode: (text) => (text === "" ? [] : text.split(",")),
  encode: (shapes) => shapes.join(",")
})

/** `steps`, as read. */
export const StepStored = Schema.Struct({
  questionId: Schema.String,
  ...StepInput.fields,
  args: Schema.propertySignature(Schema.parseJson(StepInput.fields.args)).pipe(Schema.fromKey("argsJson")),
  reflect: Schema.propertySignature(Schema.parseJson(StepInput.fields.reflect)).pipe(Schema.fromKey("reflectJson")),
  plan: Schema.propertySignature(Schema.parseJson(StepInput.fields.plan)).pipe(Schema.fromKey("planJson")),
  replyShapes: Schema.optionalWith(ShapeList, { default: () => [] })
})

export const StepInsert = Schema.Struct({ runId: Schema.String, ...StepStored.fields })

/** `llm_calls`, as read; call_id is the database's. */
export const CallStored = Schema.Struct({
  ...CallRow.fields,
  cachedPromptTokens: NullWhenAbsent(Schema.Number),
  reasoningTokens: NullWhenAbsent(Schema.Number),
  endpoint: NullWhenAbsent(Schema.String),
  attempts: NullWhenAbsent(Schema.Number),
  superseded: Schema.optionalWith(Model.BooleanFromNumber, { default: () => false })
})

export const CallInsert = Schema.Struct({ runId: Schema.String, ...Struct.omit(CallStored.fields, "callId") })

export const QueueInsert = Schema.Struct({
  runId: Schema.String,
  questionId: Schema.String,
  position: Schema.Number,
  done: Schema.Number
})

/** What an UPDATE … RETURNING run_id found. */
export const RunKey = Schema.Struct({ runId: Schema.String })
export const QuestionKey = Schema.Struct({ questionId: Schema.String })
