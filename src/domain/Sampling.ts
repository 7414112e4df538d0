// Sampling settings per model role: what a chat request may carry beyond its messages (temperature,
// top_p, seed, a cap on the reply's tokens), how each is written and checked, and how two runs' settings
// differ. The vocabulary the configuration (VTREE_*_TEMPERATURE …), the infer flags and the harness share.
import { Schema } from "effect"

/** Fields left out are not sent: the endpoint's own default applies. */
export const Sampling = Schema.Struct({
  temperature: Schema.optionalWith(Schema.Number, { exact: true }),
  topP: Schema.optionalWith(Schema.Number, { exact: true }),
  seed: Schema.optionalWith(Schema.Number, { exact: true }),
  maxTokens: Schema.optionalWith(Schema.Number, { exact: true })
})
export type Sampling = typeof Sampling.Type

export type SamplingField = keyof Sampling

/** The roles whose chat requests carry sampling: the agent, the tool (summarizer) model and the vision model. */
export const samplingRoles = ["agent", "tool", "vlm"] as const
export type SamplingRole = (typeof samplingRoles)[number]

/** Each role's sampling, as a run used it (stored in its config_json as `sampling`). */
export const RunSampling = Schema.Struct({ agent: Sampling, tool: Sampling, vlm: Sampling })
export type RunSampling = typeof RunSampling.Type

const number = (raw: string): number | undefined => {
  const value = raw.trim() === "" ? Number.NaN : Number(raw)
  return Number.isFinite(value) ? value : undefined
}
const within = (low: number, high: number, lowOpen = false) => (raw: string): number | undefined => {
  const value = number(raw)
  return value !== undefined && (lowOpen ? value > low : value >= low) && value <= high ? value : undefined
}
const whole = (min: number) => (raw: string): number | undefined => {
  const value = number(raw)
  return value !== undefined && Number.isSafeInteger(value) && value >= min ? value : undefined
}

/**
 * Per field: the variable suffix (`VTREE_LLM_` + suffix), the infer flag (agent role), what a value must
 * be, and its reader (undefined: not such a value). The ranges are OpenAI's, which compatible servers share.
 */
export const samplingFields: {
  readonly [K in SamplingField]: {
    readonly suffix: string
    readonly flag: string
    readonly label: string
    readonly expected: string
    readonly parse: (raw: string) => number | undefined
  }
} = {
  temperature: {
    suffix: "TEMPERATURE",
    flag: "--temperature",
    label: "temperature",
    expected: "a number from 0 to 2",
    parse: within(0, 2)
  },
  topP: {
    suffix: "TOP_P",
    flag: "--top-p",
    label: "top_p",
    expected: "a number above 0, at most 1",
    parse: within(0, 1, true)
  },
  seed: { suffix: "SEED", flag: "--seed", label: "seed", expected: "a whole number ≥ 0", parse: whole(0) },
  maxTokens: {
    suffix: "MAX_TOKENS",
    flag: "--max-tokens",
    label: "max tokens",
    expected: "a whole number ≥ 1",
    parse: whole(1)
  }
}

export const samplingFieldNames: ReadonlyArray<SamplingField> = ["temperature", "topP", "seed", "maxTokens"]

/** The variable prefix of each role. */
export const samplingPrefixes: Readonly<Record<SamplingRole, string>> = {
  agent: "VTREE_LLM",
  tool: "VTREE_TOOL_LLM",
  vlm: "VTREE_VLM"
}

/** `VTREE_TOOL_LLM_TEMPERATURE`. */
export const samplingVariable = (role: SamplingRole, field: SamplingField): string =>
  `${samplingPrefixes[role]}_${samplingFields[field].suffix}`

/** `b` over `a`, field by field: a field `b` sets wins. */
export const overSampling = (a: Sampling, b: Sampling): Sampling => ({ ...a, ...b })

const shown = (value: number | undefined) => (value === undefined ? "unset" : String(value))

/**
 * The first setting that differs between a run's stored sampling and the one asked now, in words naming
 * where it is set; undefined when they agree.
 */
export const samplingDifference = (stored: RunSampling, now: RunSampling): string | undefined => {
  for (const role of samplingRoles) {
    for (const field of samplingFieldNames) {
      const before = stored[role][field]
      const after = now[role][field]
      if (before === after) continue
      const where = role === "agent"
        ? `${samplingFields[field].flag} or ${samplingVariable(role, field)}`
        : samplingVariable(role, field)
      return `${role} ${samplingFields[field].label} ${shown(before)}, now ${shown(after)} (set by ${where})`
    }
  }
  return undefined
}
