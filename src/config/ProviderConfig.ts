import { Config, ConfigError, type Duration, Effect, Option, type Redacted } from "effect"
import {
  type Sampling,
  samplingFieldNames,
  samplingFields,
  type SamplingRole,
  samplingVariable
} from "../domain/Sampling.js"
import { ConfigurationError } from "./ConfigurationError.js"
import { httpUrl, load, parsed, positiveWhole, seconds, secret, text, urls, wholeNumber } from "./ConfigVariables.js"

/**
 * How thinking is switched on for the agent role and off for the tool role. Servers disagree on the
 * request field, so the user names the dialect their endpoint speaks (see `layers/openai/Thinking.ts`).
 */
export type ThinkingDialect = "none" | "deepseek" | "dashscope" | "vllm"
export const thinkingDialects: ReadonlyArray<ThinkingDialect> = ["none", "deepseek", "dashscope", "vllm"]

/** One OpenAI-compatible endpoint, fully resolved (fallbacks applied). */
export interface EndpointConfig {
  /** Label used in errors, logs and the doctor table: "llm", "tool-llm", "vlm", "embed". */
  readonly provider: string
  /** The first of `baseUrls`: what single-endpoint code and labels use. */
  readonly baseUrl: string
  /** Every replica serving the role (a comma-separated `*_BASE_URL`); absent: `baseUrl` alone. */
  readonly baseUrls?: ReadonlyArray<string>
  /** Local servers (vLLM, Ollama) often need none. */
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly model: string
  /** Each attempt gets this long; retries get their own. */
  readonly timeout: Duration.Duration
}

export interface ReliabilityConfig {
  /** Maximum requests in flight per provider. */
  readonly concurrency: number
  /** Retries after the first attempt, for transient reasons only. */
  readonly retries: number
  /** How long a failing replica of a role with several base URLs is first left out (5 s; doubles, ≤ 1 min). */
  readonly ejectFor?: Duration.Duration
  /** The most bytes a model reply may hold, streamed or not (`VTREE_PROVIDER_MAX_REPLY_BYTES`, 32 MiB). */
  readonly maxReplyBytes?: number
}

export interface LlmConfig {
  readonly agent: EndpointConfig
  readonly tool: EndpointConfig
  readonly thinking: ThinkingDialect
  readonly reliability: ReliabilityConfig
  /** What each role's requests carry (VTREE_LLM_* / VTREE_TOOL_LLM_* sampling variables); absent: nothing. */
  readonly sampling?: { readonly agent: Sampling; readonly tool: Sampling }
}

export interface VlmConfig {
  readonly endpoint: EndpointConfig
  readonly thinking: ThinkingDialect
  /** What vision requests carry (VTREE_VLM_* sampling variables); absent: nothing. */
  readonly sampling?: Sampling
  /** Images above this size are refused before upload: servers reject them anyway, slowly. */
  readonly maxImageBytes: number
  readonly reliability: ReliabilityConfig
}

export interface EmbeddingConfig {
  readonly endpoint: EndpointConfig
  /** Checked against every reply when set; otherwise learned from the first reply. */
  readonly dimensions: number | undefined
  readonly batchSize: number
  readonly reliability: ReliabilityConfig
}

export interface OcrConfig {
  readonly urls: ReadonlyArray<string>
  readonly timeout: Duration.Duration
  readonly reliability: ReliabilityConfig
}

/** The embedded OCR engine (tesseract.js): trained data from npm packages, threads started on demand. */
export interface TesseractConfig {
  readonly langs: ReadonlyArray<string>
  readonly workers: number
  readonly timeout: Duration.Duration
}

/** Which OCR engine observe_frame uses (`VTREE_OCR`); none when it is `off`. */
export type OcrEngineConfig =
  | { readonly engine: "tesseract"; readonly tesseract: TesseractConfig }
  | { readonly engine: "monkeyocr"; readonly monkeyocr: OcrConfig }

/** Everything the provider layers read from the environment; absent parts are not configured. */
export interface ProvidersConfig {
  readonly llm: Option.Option<LlmConfig>
  readonly vlm: Option.Option<VlmConfig>
  readonly embedding: Option.Option<EmbeddingConfig>
  readonly ocr: Option.Option<OcrEngineConfig>
}

export const defaultOpenAiBaseUrl = "https://api.openai.com/v1"

/** The variables to mention when nothing is configured. */
export const configurationHelp =
  "set VTREE_LLM_MODEL (and VTREE_LLM_BASE_URL / VTREE_LLM_API_KEY, or OPENAI_BASE_URL / OPENAI_API_KEY) for the " +
  "agent and tool models; optionally VTREE_TOOL_LLM_*, VTREE_VLM_*, VTREE_EMBED_BASE_URL / VTREE_EMBED_MODEL and " +
  "VTREE_OCR_URLS"

// ---- One variable at a time ------------------------------------------------------------------------
// Failures are ConfigError values whose path is the variable; `load` turns them into ConfigurationError.

const thinking = parsed(
  "VTREE_LLM_THINKING",
  `one of ${thinkingDialects.join(", ")}`,
  (raw) => thinkingDialects.find((dialect) => dialect === raw.toLowerCase()),
  "none"
)

/**
 * OpenAI's reasoning models ("o3-mini", "openai/o4-mini" on routers, the gpt-5 family; not "gpt-4o"):
 * they want max_completion_tokens (layers/openai/Dialect.ts) and refuse any temperature but their own.
 */
const openAiReasoningModel = /^(?:[\w-]+\/)?(?:o\d+(?:$|-)|gpt-5)/i
export const isOpenAiReasoningModel = (model: string): boolean => openAiReasoningModel.test(model)

/**
 * One role's sampling variables (`<prefix>_TEMPERATURE`, `_TOP_P`, `_SEED`, `_MAX_TOKENS`), each its own:
 * no role inherits another's. Unset takes `defaults`; `none` sends nothing, even where there is a default.
 */
const samplingOf = (role: SamplingRole, defaults: Sampling = {}) =>
  Effect.gen(function*() {
    const sampling: { -readonly [K in keyof Sampling]: Sampling[K] } = {}
    for (const field of samplingFieldNames) {
      const { expected, parse } = samplingFields[field]
      const value = yield* parsed(
        samplingVariable(role, field),
        `${expected}, or none to send none`,
        (raw) => {
          if (raw.toLowerCase() === "none") return Option.none<number>()
          const read = parse(raw)
          return read === undefined ? undefined : Option.some(read)
        },
        Option.fromNullable(defaults[field])
      )
      if (Option.isSome(value)) sampling[field] = value.value
    }
    return sampling as Sampling
  })

/**
 * The tool role summarizes and checks: temperature 0 by default, so a run repeats. Not for OpenAI's
 * reasoning models, which refuse a temperature other than their own.
 */
const toolSamplingDefaults = (model: string): Sampling => (isOpenAiReasoningModel(model) ? {} : { temperature: 0 })

export const reliability: Config.Config<ReliabilityConfig> = Config.all({
  concurrency: wholeNumber("VTREE_PROVIDER_CONCURRENCY", 16),
  retries: parsed(
    "VTREE_PROVIDER_RETRIES",
    "a whole number ≥ 0",
    (raw) => (/^\d+$/.test(raw) ? Number(raw) : undefined),
    4
  ),
  ejectFor: seconds("VTREE_PROVIDER_EJECT_SECONDS", 5),
  maxReplyBytes: wholeNumber("VTREE_PROVIDER_MAX_REPLY_BYTES", 32 * 1024 * 1024)
})

const endpointVariables = (prefix: string) =>
  Config.all({
    baseUrl: urls(`${prefix}_BASE_URL`),
    apiKey: secret(`${prefix}_API_KEY`),
    model: text(`${prefix}_MODEL`)
  })

/** A role with a base URL but no model: the model is what the user forgot. */
const modelMissing = (prefix: string, fix: string) =>
  Effect.fail(ConfigError.MissingData(
    [`${prefix}_MODEL`],
    `${prefix}_BASE_URL is set but ${prefix}_MODEL is not: set ${prefix}_MODEL to ${fix}`
  ))

type Endpoint = Pick<EndpointConfig, "baseUrl" | "baseUrls" | "apiKey" | "model">

/** `baseUrl` and, when there are several, `baseUrls`. */
const located = (list: ReadonlyArray<string>) => ({ baseUrl: list[0]!, ...(list.length > 1 ? { baseUrls: list } : {}) })

/**
 * A role's endpoint from its own variables, falling back to the agent's. A key meant for one host is
 * never sent to another the user named separately.
 */
const inheritEndpoint = (
  agent: Option.Option<Endpoint>,
  own: {
    readonly baseUrl: Option.Option<ReadonlyArray<string>>
    readonly apiKey: Option.Option<Redacted.Redacted<string>>
  }
): Omit<Endpoint, "model"> => {
  const agentUrls = (a: Endpoint) => a.baseUrls ?? [a.baseUrl]
  const list = Option.getOrElse(
    Option.orElse(own.baseUrl, () => Option.map(agent, agentUrls)),
    () => [defaultOpenAiBaseUrl]
  )
  const inheritedKey = Option.flatMap(
    agent,
    (a) => (agentUrls(a).join(",") === list.join(",") ? a.apiKey : Option.none())
  )
  return { ...located(list), apiKey: Option.orElse(own.apiKey, () => inheritedKey) }
}

// ---- One role at a time: each reads only its own variables (and the agent's, which it falls back to) --

/** The agent's endpoint; none when no LLM variable is set. */
const agentEndpoint = Effect.gen(function*() {
  const own = yield* endpointVariables("VTREE_LLM")
  const toolSet = Option.isSome(yield* text("VTREE_TOOL_LLM_MODEL")) ||
    Option.isSome(yield* text("VTREE_TOOL_LLM_BASE_URL"))
  if (Option.isNone(own.model)) {
    if (Option.isNone(own.baseUrl) && !toolSet) return Option.none<Endpoint>()
    return yield* Effect.fail(ConfigError.MissingData(
      ["VTREE_LLM_MODEL"],
      "VTREE_LLM_MODEL is not set: set it to the agent (reasoning) model name, e.g. VTREE_LLM_MODEL=deepseek-reasoner"
    ))
  }
  const baseUrl = Option.isSome(own.baseUrl) ? own.baseUrl : yield* urls("OPENAI_BASE_URL")
  return Option.some<Endpoint>({
    ...located(Option.getOrElse(baseUrl, () => [defaultOpenAiBaseUrl])),
    apiKey: Option.isSome(own.apiKey) ? own.apiKey : yield* secret("OPENAI_API_KEY"),
    model: own.model.value
  })
})

const llm = Effect.gen(function*() {
  const agent = yield* agentEndpoint
  if (Option.isNone(agent)) return Option.none<LlmConfig>()
  const tool = yield* endpointVariables("VTREE_TOOL_LLM")
  const toolModel = Option.getOrElse(tool.model, () => agent.value.model)
  return Option.some<LlmConfig>({
    agent: { provider: "llm", ...agent.value, timeout: yield* seconds("VTREE_LLM_TIMEOUT_SECONDS", 180) },
    tool: {
      provider: "tool-llm",
      ...inheritEndpoint(agent, tool),
      model: toolModel,
      timeout: yield* seconds("VTREE_TOOL_LLM_TIMEOUT_SECONDS", 120)
    },
    thinking: yield* thinking,
    reliability: yield* reliability,
    sampling: { agent: yield* samplingOf("agent"), tool: yield* samplingOf("tool", toolSamplingDefaults(toolModel)) }
  })
})

const vlm = Effect.gen(function*() {
  const own = yield* endpointVariables("VTREE_VLM")
  const agent = yield* agentEndpoint
  const model = Option.orElse(own.model, () => Option.map(agent, (a) => a.model))
  if (Option.isNone(model)) {
    if (Option.isNone(own.baseUrl)) return Option.none<VlmConfig>()
    return yield* modelMissing("VTREE_VLM", "the vision model name")
  }
  return Option.some<VlmConfig>({
    endpoint: {
      provider: "vlm",
      ...inheritEndpoint(agent, own),
      model: model.value,
      timeout: yield* seconds("VTREE_VLM_TIMEOUT_SECONDS", 180)
    },
    thinking: yield* thinking,
    maxImageBytes: yield* wholeNumber("VTREE_VLM_MAX_IMAGE_BYTES", 10 * 1024 * 1024),
    reliability: yield* reliability,
    sampling: yield* samplingOf("vlm")
  })
})

const embedding = Effect.gen(function*() {
  const own = yield* endpointVariables("VTREE_EMBED")
  if (Option.isNone(own.model)) {
    if (Option.isNone(own.baseUrl)) return Option.none<EmbeddingConfig>()
    return yield* modelMissing("VTREE_EMBED", "the embedding model name, or unset VTREE_EMBED_BASE_URL to use BM25")
  }
  return Option.some<EmbeddingConfig>({
    endpoint: {
      provider: "embed",
      ...inheritEndpoint(yield* agentEndpoint, own),
      model: own.model.value,
      timeout: yield* seconds("VTREE_EMBED_TIMEOUT_SECONDS", 60)
    },
    dimensions: yield* parsed<number | undefined>(
      "VTREE_EMBED_DIMENSIONS",
      "a positive whole number",
      positiveWhole,
      undefined
    ),
    batchSize: Math.min(64, yield* wholeNumber("VTREE_EMBED_BATCH_SIZE", 64)),
    reliability: yield* reliability
  })
})

const ocrUrls = parsed("VTREE_OCR_URLS", "comma-separated http(s) URLs such as http://localhost:7861", (raw) => {
  const urls = raw.split(",").map((part) => part.trim()).filter((part) => part !== "").map(httpUrl)
  return urls.every((u) => u !== undefined) ? urls : undefined
}, [])

const monkeyOcr = Effect.gen(function*() {
  const urls = yield* ocrUrls
  if (urls.length === 0) return Option.none<OcrConfig>()
  return Option.some<OcrConfig>({
    urls,
    timeout: yield* seconds("VTREE_OCR_TIMEOUT_SECONDS", 60),
    reliability: yield* reliability
  })
})

const ocrEngines = ["tesseract", "monkeyocr", "off"] as const
const ocrEngine = parsed<(typeof ocrEngines)[number] | undefined>(
  "VTREE_OCR",
  ocrEngines.join(", "),
  (raw) => ocrEngines.find((engine) => engine === raw.toLowerCase()),
  undefined
)

const tesseractLangs = parsed("VTREE_OCR_LANGS", "tesseract language codes such as eng or eng,chi_sim", (raw) => {
  const langs = raw.split(/[,+]/).map((part) => part.trim()).filter((part) => part !== "")
  return langs.length > 0 && langs.every((lang) => /^[a-z][a-z_]*$/.test(lang)) ? langs : undefined
}, ["eng"])

/**
 * OCR is on by default with the embedded engine: it costs nothing until a frame needs reading (no
 * thread starts before), then ~1 s once and ~70 MB (BENCHMARKS.md). MonkeyOCR when its URLs are given.
 */
const ocr = Effect.gen(function*() {
  const chosen = yield* ocrEngine
  if (chosen === "off") return Option.none<OcrEngineConfig>()
  const monkey = yield* monkeyOcr
  if (chosen === "monkeyocr" || (chosen === undefined && Option.isSome(monkey))) {
    if (Option.isNone(monkey)) {
      return yield* Effect.fail(ConfigError.MissingData(
        ["VTREE_OCR_URLS"],
        "VTREE_OCR=monkeyocr needs VTREE_OCR_URLS: set it to your MonkeyOCR servers (comma-separated), or use VTREE_OCR=tesseract"
      ))
    }
    return Option.some<OcrEngineConfig>({ engine: "monkeyocr", monkeyocr: monkey.value })
  }
  return Option.some<OcrEngineConfig>({
    engine: "tesseract",
    tesseract: {
      langs: yield* tesseractLangs,
      workers: yield* wholeNumber("VTREE_OCR_WORKERS", 1),
      timeout: yield* seconds("VTREE_OCR_TIMEOUT_SECONDS", 60)
    }
  })
})

// ---- Loading: ConfigError in, ConfigurationError out ------------------------------------------------

const required = <A>(role: Effect.Effect<Option.Option<A>, ConfigError.ConfigError>, variable: string, what: string) =>
  Effect.flatMap(
    load(role),
    Option.match({
      onSome: Effect.succeed,
      onNone: () =>
        new ConfigurationError({ reason: "Missing", variable, message: `${what} is not configured: set ${variable}` })
    })
  )

/** Each role's settings on its own (none: not configured); a broken role fails only its own load. */
export const loadRoleConfigs: {
  readonly [K in keyof ProvidersConfig]: Effect.Effect<ProvidersConfig[K], ConfigurationError>
} = {
  llm: load(llm),
  vlm: load(vlm),
  embedding: load(embedding),
  ocr: load(ocr)
}

/** Every role's VTREE_* settings, from the current ConfigProvider (the environment by default). */
export const loadProvidersConfig: Effect.Effect<ProvidersConfig, ConfigurationError> = Effect.all(loadRoleConfigs)

/** The LLM settings, or an error naming the variable to set; reads no other role's variables. */
export const loadLlmConfig: Effect.Effect<LlmConfig, ConfigurationError> = required(llm, "VTREE_LLM_MODEL", "the LLM")

export const loadVlmConfig: Effect.Effect<VlmConfig, ConfigurationError> = required(
  vlm,
  "VTREE_VLM_MODEL (or VTREE_LLM_MODEL)",
  "the vision model"
)

export const loadEmbeddingConfig: Effect.Effect<EmbeddingConfig, ConfigurationError> = required(
  embedding,
  "VTREE_EMBED_MODEL",
  "the embedding endpoint"
)

export const loadOcrConfig: Effect.Effect<OcrConfig, ConfigurationError> = required(
  monkeyOcr,
  "VTREE_OCR_URLS",
  "MonkeyOCR"
)

// ---- The judge: models that score open-ended answers (`vtree judge`) --------------------------------

/** The judges `vtree judge` asks: one endpoint per model (one base URL and key for all), each a vote. */
export interface JudgeConfig {
  readonly judges: ReadonlyArray<EndpointConfig>
  /** Temperature 0 unless VTREE_JUDGE_TEMPERATURE says otherwise (not sent to OpenAI's reasoning models). */
  readonly sampling: Sampling
  readonly thinking: ThinkingDialect
  readonly reliability: ReliabilityConfig
}

const judgeModels = parsed("VTREE_JUDGE_MODEL", "a model name, or several separated by commas", (raw) => {
  const models = [...new Set(raw.split(",").map((part) => part.trim()).filter((part) => part !== ""))]
  return models.length > 0 ? models : undefined
}, [] as ReadonlyArray<string>)

const judgeTemperature = parsed<number | undefined>(
  "VTREE_JUDGE_TEMPERATURE",
  `${samplingFields.temperature.expected}, or none to send none`,
  (raw) => raw.toLowerCase() === "none" ? Number.NaN : samplingFields.temperature.parse(raw),
  undefined
)

const judge = Effect.gen(function*() {
  const models = yield* judgeModels
  const own = { baseUrl: yield* urls("VTREE_JUDGE_BASE_URL"), apiKey: yield* secret("VTREE_JUDGE_API_KEY") }
  if (models.length === 0) {
    if (Option.isNone(own.baseUrl)) return Option.none<JudgeConfig>()
    return yield* modelMissing("VTREE_JUDGE", "the judge model name, or several separated by commas")
  }
  const endpoint = inheritEndpoint(yield* agentEndpoint, own)
  const timeout = yield* seconds("VTREE_JUDGE_TIMEOUT_SECONDS", 120)
  const temperature = yield* judgeTemperature
  // Temperature 0 by default, so a verdict repeats; NaN stands for `none`: nothing sent.
  const sent = temperature === undefined ? (models.some(isOpenAiReasoningModel) ? undefined : 0) : temperature
  return Option.some<JudgeConfig>({
    judges: models.map((model) => ({ provider: "judge", ...endpoint, model, timeout })),
    sampling: sent === undefined || Number.isNaN(sent) ? {} : { temperature: sent },
    thinking: yield* thinking,
    reliability: yield* reliability
  })
})

/** The judges' settings (VTREE_JUDGE_*), or an error naming the variable to set. */
export const loadJudgeConfig: Effect.Effect<JudgeConfig, ConfigurationError> = required(
  judge,
  "VTREE_JUDGE_MODEL",
  "the judge"
)
