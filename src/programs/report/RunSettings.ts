// What a run was run with, read back from its stored config_json and question selection: the lines every
// report shows (so a result can be repeated, or two results told apart) and the ones `report --compare`
// shows when they differ. Pure. Only what the config holds is shown, so a run stored before a setting was
// recorded simply lacks that line, and a setting recorded later (a sampling key) appears without a change here.
import { Option, Schema } from "effect"
import { type Prices, PricesFile } from "../../domain/Cost.js"
import type { RunSelection } from "../../domain/RunRecord.js"
import { runProtocol } from "./RunProtocol.js"

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

type Json = Readonly<Record<string, unknown>>

const record = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined

// A value from the config is data: a newline in a model name must not start a line of its own in a table.
const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

const scalar = (value: unknown): string | undefined =>
  typeof value === "string"
    ? oneLine(value)
    : typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : undefined

/** The host (and port) of a base URL: never its userinfo, path or query. */
const hostOf = (url: unknown): string => {
  if (typeof url !== "string") return "(unparseable)"
  try {
    return oneLine(new URL(url).host) || "(unparseable)"
  } catch {
    return "(unparseable)"
  }
}

const endpointSettings = (role: string, endpoint: unknown): ReadonlyArray<RunSetting> => {
  const fields = record(endpoint)
  if (fields === undefined) return []
  const urls = Array.isArray(fields["baseUrls"]) && fields["baseUrls"].length > 0
    ? fields["baseUrls"]
    : fields["baseUrl"] === undefined
    ? []
    : [fields["baseUrl"]]
  const model = scalar(fields["model"])
  return [
    ...(model === undefined ? [] : [{ name: `${role} model`, value: model }]),
    ...(urls.length === 0 ? [] : [{ name: `${role} endpoint`, value: [...new Set(urls.map(hostOf))].join(", ") }])
  ]
}

/** `sampling.agent.temperature` → `sampling agent.temperature`: every leaf the config holds, in its order. */
const flattened = (prefix: string, value: unknown): ReadonlyArray<RunSetting> => {
  const fields = record(value)
  if (fields === undefined) {
    const text = scalar(value) ?? (value === null ? "null" : undefined)
    return text === undefined ? [] : [{ name: prefix, value: text }]
  }
  return Object.entries(fields).flatMap(([key, inner]) =>
    flattened(prefix.endsWith(" ") ? `${prefix}${oneLine(key)}` : `${prefix}.${oneLine(key)}`, inner)
  )
}

const decodePrices = Schema.decodeUnknownOption(PricesFile)

/** The prices a run was started with (`infer --prices`, VTREE_<ROLE>_PRICE); {} when it recorded none. */
export const storedPrices = (config: unknown): Prices =>
  Option.getOrElse(decodePrices(record(config)?.["prices"]), () => ({}))

const pricesText = (prices: Prices): string | undefined => {
  const parts = Object.entries(prices).map(([role, price]) =>
    `${role} ${price.input}/${price.cachedInput ?? price.input}/${price.output}`
  )
  return parts.length === 0 ? undefined : parts.join(", ")
}

/** Settings stored as plain values, in the order reports list them, with the label each is shown under. */
const plainSettings: ReadonlyArray<readonly [key: string, name: string]> = [
  ["maxSteps", "max steps"],
  ["finalAnswer", "final answer"],
  ["prompts", "prompt pack"],
  ["skillMode", "skill mode"]
]

const laterSettings: ReadonlyArray<readonly [key: string, name: string]> = [
  ["verifyVision", "verify vision"],
  ["anchor", "anchor"],
  ["webSearch", "web search"],
  ["concurrency", "concurrency"]
]

const plain = (config: Json, keys: ReadonlyArray<readonly [string, string]>): ReadonlyArray<RunSetting> =>
  keys.flatMap(([key, name]) => {
    const value = scalar(config[key])
    return value === undefined ? [] : [{ name, value }]
  })

/**
 * The run's settings, in a fixed order: each role's model and endpoint host, thinking, OCR, every sampling
 * key stored, step budget, final-answer mode, prompt pack, skill mode, protocol, the other switches, trees,
 * question file and its sha256, answers file, vtree version, prices.
 */
export const runSettings = (run: {
  readonly config: unknown
  readonly selection?: RunSelection | null | undefined
}): ReadonlyArray<RunSetting> => {
  const config = record(run.config) ?? {}
  const providers = record(config["providers"]) ?? {}
  const llm = record(providers["llm"]) ?? {}
  const ocr = record(providers["ocr"])
  const thinking = scalar(llm["thinking"])
  const selection = run.selection ?? undefined
  const questions = selection?.questionsPath ?? scalar(config["questionsPath"])
  const answers = scalar(config["answers"])
  const version = scalar(config["vtreeVersion"])
  const prices = pricesText(storedPrices(config))
  const optional = (name: string, value: string | undefined): ReadonlyArray<RunSetting> =>
    value === undefined ? [] : [{ name, value }]
  return [
    ...endpointSettings("agent", llm["agent"]),
    ...endpointSettings("tool", llm["tool"]),
    ...endpointSettings("vlm", providers["vlm"]),
    ...endpointSettings("embedding", providers["embedding"]),
    ...optional("thinking", thinking),
    ...optional("ocr", ocr === undefined ? undefined : scalar(ocr["engine"])),
    ...flattened("sampling ", config["sampling"]),
    ...plain(config, plainSettings),
    { name: "protocol", value: runProtocol(config) },
    ...plain(config, laterSettings),
    ...optional("trees", scalar(config["treesDir"])),
    ...optional("questions", questions),
    ...optional("questions sha256", selection?.questionsSha256),
    ...optional("answers", answers),
    ...optional("vtree version", version),
    ...optional("prices", prices)
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
  config: unknown,
  calls: ReadonlyArray<{ readonly role: string; readonly model: string }> = []
): string | null => {
  const named = runSettings({ config }).find((s) => s.name === "agent model")?.value
  if (named !== undefined) return named
  const models = [...new Set(calls.filter((c) => c.role === "agent").map((c) => oneLine(c.model)))].sort()
  return models.length === 0 ? null : models.join(", ")
}
