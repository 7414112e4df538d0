// What a run was run with, read back from its stored record (RunConfig.ts's StoredRunConfig) and question
// selection: the lines every report shows (so a result can be repeated, or two results told apart) and the
// ones `report --compare` shows when they differ. Pure. Only what the record holds is shown, so a run stored
// before a setting was recorded simply lacks that line.
import type { Prices } from "../../domain/Cost.js"
import type { StoredRunConfig } from "../../domain/RunConfig.js"
import type { RunSelection } from "../../domain/RunRecord.js"
import { samplingFieldNames, samplingRoles } from "../../domain/Sampling.js"
import { controlSettings } from "./ReportControl.js"

/** One setting as people read it: `name` is stable (json key, compare row), `value` one line of text. */
export interface RunSetting {
  readonly name: string
  readonly value: string
}

export interface SettingDifference {
  readonly name: string
  /** `—` where the run has no such setting. */
  readonly a: string
  readonly b: string
}

// A value from the record is data: a newline in a model name must not start a line of its own in a table.
const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

/** The host (and port) of a base URL: never its userinfo, path or query. */
const hostOf = (url: string): string => {
  try {
    return oneLine(new URL(url).host) || "(unparseable)"
  } catch {
    return "(unparseable)"
  }
}

type StoredProviders = NonNullable<StoredRunConfig["providers"]>
type StoredEndpoint = NonNullable<StoredProviders["vlm"]>

const endpointSettings = (role: string, endpoint: StoredEndpoint | null | undefined): ReadonlyArray<RunSetting> => {
  if (endpoint === null || endpoint === undefined) return []
  const urls = endpoint.baseUrls !== undefined && endpoint.baseUrls.length > 0
    ? endpoint.baseUrls
    : endpoint.baseUrl === undefined
    ? []
    : [endpoint.baseUrl]
  return [
    ...(endpoint.model === undefined ? [] : [{ name: `${role} model`, value: oneLine(endpoint.model) }]),
    ...(urls.length === 0 ? [] : [{ name: `${role} endpoint`, value: [...new Set(urls.map(hostOf))].join(", ") }])
  ]
}

/** `sampling agent.temperature`: every field the run sent, role by role. */
const samplingSettings = (sampling: StoredRunConfig["sampling"]): ReadonlyArray<RunSetting> =>
  sampling === undefined ? [] : samplingRoles.flatMap((role) =>
    samplingFieldNames.flatMap((field) => {
      const value = sampling[role]?.[field]
      return value === undefined ? [] : [{ name: `sampling ${role}.${field}`, value: String(value) }]
    })
  )

/** The prices a run was started with (`infer --prices`, VTREE_<ROLE>_PRICE); {} when it recorded none. */
export const storedPrices = (config: StoredRunConfig): Prices => config.prices ?? {}

const pricesText = (prices: Prices): string | undefined => {
  const parts = Object.entries(prices).map(([role, price]) =>
    `${role} ${price.input}/${price.cachedInput ?? price.input}/${price.output}`
  )
  return parts.length === 0 ? undefined : parts.join(", ")
}

const optional = (name: string, value: string | number | boolean | undefined): ReadonlyArray<RunSetting> =>
  value === undefined ? [] : [{ name, value: typeof value === "string" ? oneLine(value) : String(value) }]

/**
 * The run's settings, in a fixed order: each role's model and endpoint host, thinking, OCR, every sampling
 * key stored, step budget, final-answer mode, prompt pack, skill mode, protocol, the other switches, trees,
 * question file and its sha256, answers file, vtree version, prices.
 */
export const runSettings = (run: {
  readonly config: StoredRunConfig
  readonly selection?: RunSelection | null | undefined
}): ReadonlyArray<RunSetting> => {
  const { config } = run
  const providers = config.providers ?? {}
  const llm = providers.llm ?? {}
  const selection = run.selection ?? undefined
  return [
    ...endpointSettings("agent", llm.agent),
    ...endpointSettings("tool", llm.tool),
    ...endpointSettings("vlm", providers.vlm),
    ...endpointSettings("embedding", providers.embedding),
    ...optional("thinking", llm.thinking),
    ...optional("ocr", providers.ocr?.engine),
    ...samplingSettings(config.sampling),
    ...optional("max steps", config.maxSteps),
    ...optional("final answer", config.finalAnswer),
    ...optional("prompt pack", config.prompts),
    ...optional("skill mode", config.skillMode),
    { name: "protocol", value: config.protocol },
    ...optional("verify vision", config.verifyVision),
    ...optional("anchor", config.anchor),
    ...optional("web search", config.webSearch),
    ...optional("concurrency", config.concurrency),
    ...optional("trees", config.treesDir),
    ...optional("questions", selection?.questionsPath ?? config.questionsPath),
    ...optional("questions sha256", selection?.questionsSha256),
    ...optional("answers", config.answers ?? undefined),
    ...optional("vtree version", config.vtreeVersion),
    ...optional("prices", pricesText(storedPrices(config))),
    ...controlSettings(config)
  ]
}

/** The settings whose values differ between run A and run B (or that only one of them has), A's order first. */
export const settingsDifference = (
  a: ReadonlyArray<RunSetting>,
  b: ReadonlyArray<RunSetting>
): ReadonlyArray<SettingDifference> => {
  const valuesA = new Map(a.map((s) => [s.name, s.value]))
  const valuesB = new Map(b.map((s) => [s.name, s.value]))
  const names = [...new Set([...a.map((s) => s.name), ...b.map((s) => s.name)])]
  return names
    .map((name) => ({ name, a: valuesA.get(name) ?? "—", b: valuesB.get(name) ?? "—" }))
    .filter((row) => row.a !== row.b)
}

/**
 * The agent model a run used: the one its config names, else the models its agent calls name (runs stored
 * before the providers were recorded); null when neither says.
 */
export const agentModelOf = (
  config: StoredRunConfig,
  calls: ReadonlyArray<{ readonly role: string; readonly model: string }> = []
): string | null => {
  const named = runSettings({ config }).find((s) => s.name === "agent model")?.value
  if (named !== undefined) return named
  const models = [...new Set(calls.filter((c) => c.role === "agent").map((c) => oneLine(c.model)))].sort()
  return models.length === 0 ? null : models.join(", ")
}
