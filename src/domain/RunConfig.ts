// What a run is made with: the one record the CLI builds, the harness and the agent read whole, the store
// keeps as config_json, and reports, `vtree runs`, resume checks, exports and the MCP ask tool decode.
// Two views of one set of keys: `RunConfig`, a new run's record, with each setting's default written once
// here; and `StoredRunConfig`, config_json as any version wrote it, where a key an earlier version did not
// write reads as absent (or as the value such runs had: see `legacy` below), never as today's default.
import { Option, Schema } from "effect"
import { ControlKind, ControlPairs } from "./Control.js"
import { PricesFile } from "./Cost.js"
import { BenchmarkName } from "./Question.js"
import { RunSampling, Sampling } from "./Sampling.js"

/** How the agent calls tools: `json` (a JSON action in its reply) or `tools` (native function calling). */
export const AgentProtocol = Schema.Literal("json", "tools")
/** `auto`: the skill hint in the first message; `manual`: a read_skill tool; `none`: no skills. */
export const SkillMode = Schema.Literal("auto", "manual", "none")
/** How the agent cites the tree's nodes: not at all, by id, or by quoting them. */
export const AnchorMode = Schema.Literal("off", "ids", "quote")

/**
 * What the agent does with each question, with the defaults a new run, the agent's options and the MCP
 * ask tool share: the only place they are written.
 */
export const AgentSettings = Schema.Struct({
  /** Tool calls a question may take before it must answer. */
  maxSteps: Schema.optionalWith(Schema.Number, { default: () => 15 }),
  /** Ask for an answer once the step budget is spent (`--no-final-answer` turns it off). */
  finalAnswer: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  skillMode: Schema.optionalWith(SkillMode, { default: () => "auto" as const }),
  protocol: Schema.optionalWith(AgentProtocol, { default: () => "json" as const }),
  verifyVision: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  anchor: Schema.optionalWith(AnchorMode, { default: () => "off" as const }),
  webSearch: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type AgentSettings = typeof AgentSettings.Type

/** What was given, an undefined value read as not given (so the schema's default applies). */
export type Given<A> = { readonly [K in keyof A]?: A[K] | undefined }

type DefinedOnly<A> =
  & { readonly [K in keyof A as undefined extends A[K] ? K : never]?: Exclude<A[K], undefined> }
  & { readonly [K in keyof A as undefined extends A[K] ? never : K]: A[K] }

/** `value` without its undefined keys: what a schema's constructor reads as not given, so its default applies. */
export const definedOnly = <A extends object>(value: A): DefinedOnly<A> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as DefinedOnly<A>

/** `given`'s agent settings alone, each one it leaves out at its default. */
export const agentSettings = (given: Given<AgentSettings>): AgentSettings => {
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(AgentSettings.fields) as ReadonlyArray<keyof AgentSettings>) {
    if (given[key] !== undefined) picked[key] = given[key]
  }
  return AgentSettings.make(picked)
}

/** The defaults alone: for help texts and tool schemas that name them. */
export const agentDefaults: AgentSettings = agentSettings({})

/** An endpoint as a run records it: base URL(s) without credentials, query or fragment, and the model. */
export const RunEndpoint = Schema.Struct({
  baseUrl: Schema.String,
  baseUrls: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  model: Schema.String
})
export type RunEndpoint = typeof RunEndpoint.Type

/** The OCR engine a run used: tesseract's languages and workers, or how many MonkeyOCR endpoints. */
export const RunOcr = Schema.Struct({
  engine: Schema.String,
  langs: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  workers: Schema.optionalWith(Schema.Number, { exact: true }),
  endpoints: Schema.optionalWith(Schema.Number, { exact: true })
})

/** Each role's endpoint and model (null: the role was not configured), never a key. */
export const RunProviders = Schema.Struct({
  llm: Schema.NullOr(Schema.Struct({ agent: RunEndpoint, tool: RunEndpoint, thinking: Schema.String })),
  vlm: Schema.NullOr(RunEndpoint),
  embedding: Schema.NullOr(RunEndpoint),
  ocr: Schema.NullOr(RunOcr)
})
export type RunProviders = typeof RunProviders.Type

/** What the run asks and how many at once, with a new run's defaults. */
export const RunControl = Schema.Struct({
  /** The questions' benchmark. */
  benchmark: Schema.optionalWith(BenchmarkName, { default: () => "videomme" as const }),
  /** The `--answers` keys file (an absolute path); null without one. */
  answers: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  /** Questions answered at once. */
  concurrency: Schema.optionalWith(Schema.Number, { default: () => 12 })
})

export const controlDefaults: typeof RunControl.Type = RunControl.make({})

/** A new run's record, as `infer` (or an embedding app) makes it and config_json stores it. */
export const RunConfig = Schema.Struct({
  ...AgentSettings.fields,
  ...RunControl.fields,
  /** The trees folder, resolved to an absolute path. */
  treesDir: Schema.String,
  /** The question file and how many questions were selected (`selected` as infer wrote it, `questions` as the harness). */
  questionsPath: Schema.optionalWith(Schema.String, { exact: true }),
  selected: Schema.optionalWith(Schema.Number, { exact: true }),
  questions: Schema.Number,
  /** The prompt pack's folder. */
  prompts: Schema.String,
  providers: Schema.optionalWith(RunProviders, { exact: true }),
  sampling: Schema.optionalWith(RunSampling, { exact: true }),
  /** The prices a later report uses unless told otherwise; absent when none were given. */
  prices: Schema.optionalWith(PricesFile, { exact: true }),
  vtreeVersion: Schema.String,
  /**
   * Which control the run is (Control.ts; absent: none, as every run stored before controls), its seed (shuffled,
   * chance) and a shuffled run's video pairing.
   */
  control: Schema.optionalWith(ControlKind, { exact: true }),
  controlSeed: Schema.optionalWith(Schema.Number, { exact: true }),
  controlPairs: Schema.optionalWith(ControlPairs, { exact: true })
})
export type RunConfig = typeof RunConfig.Type

/** A key as an earlier version may have stored it: a value `schema` refuses reads as absent, not as a bad row. */
const stored = <A, I>(schema: Schema.Schema<A, I>) =>
  Schema.optionalToOptional(Schema.Unknown, Schema.typeSchema(schema), {
    decode: Option.flatMap(Schema.decodeUnknownOption(schema)),
    encode: Option.map(Schema.encodeSync(schema))
  })

/** A key runs stored before it was recorded lack, read as the value such runs had. */
const legacy = <A, I>(schema: Schema.Schema<A, I>, value: () => A) =>
  Schema.optionalToRequired(Schema.Unknown, Schema.typeSchema(schema), {
    decode: (o) => Option.getOrElse(Option.flatMap(o, Schema.decodeUnknownOption(schema)), value),
    encode: (a) => Option.some(Schema.encodeSync(schema)(a))
  })

const StoredEndpoint = Schema.Struct({
  baseUrl: stored(Schema.String),
  baseUrls: stored(Schema.Array(Schema.String)),
  model: stored(Schema.String)
})

// null: the role was not configured.
const StoredProviders = Schema.Struct({
  llm: stored(
    Schema.NullOr(
      Schema.Struct({ agent: stored(StoredEndpoint), tool: stored(StoredEndpoint), thinking: stored(Schema.String) })
    )
  ),
  vlm: stored(Schema.NullOr(StoredEndpoint)),
  embedding: stored(Schema.NullOr(StoredEndpoint)),
  ocr: stored(Schema.NullOr(Schema.Struct({
    engine: stored(Schema.String),
    langs: stored(Schema.Array(Schema.String)),
    workers: stored(Schema.Number),
    endpoints: stored(Schema.Number)
  })))
})

// A role's sampling as stored; a run records all three roles (RunSampling), a record lacking one is read as far as it goes.
const StoredSampling = Schema.Struct({ agent: stored(Sampling), tool: stored(Sampling), vlm: stored(Sampling) })

/** The sampling a run recorded for every role, as a resumed run must repeat it; none when it recorded less. */
export const recordedSampling = (config: StoredRunConfig): RunSampling | undefined =>
  Schema.is(RunSampling)(config.sampling) ? config.sampling : undefined

/**
 * config_json as any version of vtree wrote it (unknown keys ignored). Absent means the run did not record
 * the setting, and a report leaves its line out; except where runs stored before a key was recorded could
 * only have one value: `protocol` json, `benchmark` Video-MME, `answers` none. `finalAnswer` stays absent
 * (its line is left out) and counts as off: see `runFinalAnswer`.
 */
export const StoredRunConfig = Schema.Struct({
  protocol: legacy(AgentProtocol, () => "json" as const),
  benchmark: legacy(BenchmarkName, () => "videomme" as const),
  answers: legacy(Schema.NullOr(Schema.NonEmptyString), () => null),
  finalAnswer: stored(Schema.Boolean),
  maxSteps: stored(Schema.Number),
  skillMode: stored(SkillMode),
  verifyVision: stored(Schema.Boolean),
  anchor: stored(AnchorMode),
  webSearch: stored(Schema.Boolean),
  concurrency: stored(Schema.Number),
  treesDir: stored(Schema.NonEmptyString),
  questionsPath: stored(Schema.NonEmptyString),
  selected: stored(Schema.Number),
  questions: stored(Schema.Number),
  prompts: stored(Schema.String),
  providers: stored(StoredProviders),
  sampling: stored(StoredSampling),
  prices: stored(PricesFile),
  vtreeVersion: stored(Schema.String),
  // Absent: no control (runControl), as every run stored before controls existed.
  control: stored(ControlKind),
  controlSeed: stored(Schema.Number),
  controlPairs: stored(ControlPairs)
})
export type StoredRunConfig = typeof StoredRunConfig.Type

/** A run that recorded nothing (the earliest ones, or a summary made without its record). */
export const nothingRecorded: StoredRunConfig = Schema.decodeSync(StoredRunConfig)({})

/** The config_json column: JSON text decoded by StoredRunConfig. */
export const StoredRunConfigJson = Schema.parseJson(StoredRunConfig)

/** Which control the run is: `none` unless its record names one. */
export const runControl = (config: Pick<StoredRunConfig, "control">): ControlKind => config.control ?? "none"

/** Whether the run asks for an answer once the step budget is spent: runs stored before the mode was recorded never did. */
export const runFinalAnswer = (config: StoredRunConfig): boolean => config.finalAnswer ?? false
