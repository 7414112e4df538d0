import { Config, ConfigError, Data, Duration, Effect, Option, Redacted } from "effect"

/**
 * How thinking is switched on for the agent role and off for the tool role. Servers disagree on the
 * request field, so the user names the dialect their endpoint speaks (see `layers/openai/Thinking.ts`).
 */
export type ThinkingDialect = "none" | "deepseek" | "dashscope" | "vllm"
export const thinkingDialects: ReadonlyArray<ThinkingDialect> = ["none", "deepseek", "dashscope", "vllm"]

/** A configuration problem a person fixes by setting `variable`; the message says how. */
export class ConfigurationError extends Data.TaggedError("ConfigurationError")<{
  readonly variable: string
  readonly message: string
}> {}

/** One OpenAI-compatible endpoint, fully resolved (fallbacks applied). */
export interface EndpointConfig {
  /** Label used in errors, logs and the doctor table: "llm", "tool-llm", "vlm", "embed". */
  readonly provider: string
  readonly baseUrl: string
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
}

export interface LlmConfig {
  readonly agent: EndpointConfig
  readonly tool: EndpointConfig
  readonly thinking: ThinkingDialect
  readonly reliability: ReliabilityConfig
}

export interface VlmConfig {
  readonly endpoint: EndpointConfig
  readonly thinking: ThinkingDialect
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

/** Everything the provider layers read from the environment; absent parts are not configured. */
export interface ProvidersConfig {
  readonly llm: Option.Option<LlmConfig>
  readonly vlm: Option.Option<VlmConfig>
  readonly embedding: Option.Option<EmbeddingConfig>
  readonly ocr: Option.Option<OcrConfig>
}

export const defaultOpenAiBaseUrl = "https://api.openai.com/v1"

/** The variables to mention when nothing is configured. */
export const configurationHelp =
  "set VTREE_LLM_MODEL (and VTREE_LLM_BASE_URL / VTREE_LLM_API_KEY, or OPENAI_BASE_URL / OPENAI_API_KEY) for the " +
  "agent and tool models; optionally VTREE_TOOL_LLM_*, VTREE_VLM_*, VTREE_EMBED_BASE_URL / VTREE_EMBED_MODEL and " +
  "VTREE_OCR_URLS"

// Empty values count as unset: `VTREE_X= vtree …` is a common way to switch something off.
const text = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map(Option.flatMap((value) => {
      const trimmed = value.trim()
      return trimmed === "" ? Option.none() : Option.some(trimmed)
    }))
  )

// The one place a key is unwrapped outside a request builder: only to see whether it is blank.
const secret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

const firstSome = <A>(...options: ReadonlyArray<Option.Option<A>>): Option.Option<A> => {
  for (const option of options) if (Option.isSome(option)) return option
  return Option.none()
}

const positiveNumber = (name: string, value: Option.Option<string>, fallback: number, integer: boolean) =>
  Option.match(value, {
    onNone: () => Effect.succeed(fallback),
    onSome: (raw) => {
      const parsed = Number(raw)
      return Number.isFinite(parsed) && parsed > 0 && (!integer || Number.isInteger(parsed))
        ? Effect.succeed(parsed)
        : Effect.fail(
          new ConfigurationError({
            variable: name,
            message: `${name}=${JSON.stringify(raw)}: expected a positive ${integer ? "whole number" : "number"} — fix or unset ${name}`
          })
        )
    }
  })

const seconds = (name: string, fallback: number) =>
  Effect.flatMap(text(name), (raw) => positiveNumber(name, raw, fallback, false)).pipe(
    Effect.map((value) => Duration.seconds(value))
  )

const wholeNumber = (name: string, fallback: number) =>
  Effect.flatMap(text(name), (raw) => positiveNumber(name, raw, fallback, true))

const asConfigurationError = <A>(effect: Effect.Effect<A, ConfigurationError | ConfigError.ConfigError>) =>
  Effect.mapError(effect, (error) =>
    ConfigError.isConfigError(error)
      ? new ConfigurationError({ variable: "environment", message: `cannot read the environment: ${String(error)}` })
      : error)

const checkUrl = (name: string, url: string) =>
  Effect.try({
    try: () => {
      const parsed = new URL(url)
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)")
      return url.replace(/\/+$/, "")
    },
    catch: () =>
      new ConfigurationError({
        variable: name,
        message: `${name}=${JSON.stringify(url)}: expected an http(s) URL such as https://api.openai.com/v1 — fix ${name}`
      })
  })

const thinkingDialect = Effect.flatMap(text("VTREE_LLM_THINKING"), (raw) =>
  Option.match(raw, {
    onNone: () => Effect.succeed<ThinkingDialect>("none"),
    onSome: (value) => {
      const lower = value.toLowerCase()
      return (thinkingDialects as ReadonlyArray<string>).includes(lower)
        ? Effect.succeed(lower as ThinkingDialect)
        : Effect.fail(
          new ConfigurationError({
            variable: "VTREE_LLM_THINKING",
            message: `VTREE_LLM_THINKING=${JSON.stringify(value)}: expected one of ${thinkingDialects.join(", ")} — fix or unset VTREE_LLM_THINKING`
          })
        )
    }
  }))

const reliability = Effect.gen(function*() {
  const concurrency = yield* wholeNumber("VTREE_PROVIDER_CONCURRENCY", 16)
  const retries = yield* Effect.flatMap(text("VTREE_PROVIDER_RETRIES"), (raw) =>
    Option.match(raw, {
      onNone: () => Effect.succeed(4),
      onSome: (value) =>
        /^\d+$/.test(value)
          ? Effect.succeed(Number(value))
          : Effect.fail(
            new ConfigurationError({
              variable: "VTREE_PROVIDER_RETRIES",
              message: `VTREE_PROVIDER_RETRIES=${JSON.stringify(value)}: expected a whole number ≥ 0 — fix or unset it`
            })
          )
    }))
  return { concurrency, retries } satisfies ReliabilityConfig
})

const rawEndpoint = (prefix: string) =>
  Effect.all({
    baseUrl: text(`${prefix}_BASE_URL`),
    apiKey: secret(`${prefix}_API_KEY`),
    model: text(`${prefix}_MODEL`)
  })

const loadLlm = Effect.gen(function*() {
  const own = yield* rawEndpoint("VTREE_LLM")
  const openAiBaseUrl = yield* text("OPENAI_BASE_URL")
  const openAiKey = yield* secret("OPENAI_API_KEY")
  const tool = yield* rawEndpoint("VTREE_TOOL_LLM")
  const anyLlmSetting = [own.baseUrl, own.model, tool.model, tool.baseUrl].some(Option.isSome)
  if (!anyLlmSetting) return Option.none<LlmConfig>()
  const agentModel = own.model
  if (Option.isNone(agentModel)) {
    return yield* new ConfigurationError({
      variable: "VTREE_LLM_MODEL",
      message: "VTREE_LLM_MODEL is not set: set it to the agent (reasoning) model name, e.g. VTREE_LLM_MODEL=deepseek-reasoner"
    })
  }
  const agentBaseUrl = yield* checkUrl(
    Option.isSome(own.baseUrl) ? "VTREE_LLM_BASE_URL" : "OPENAI_BASE_URL",
    Option.getOrElse(firstSome(own.baseUrl, openAiBaseUrl), () => defaultOpenAiBaseUrl)
  )
  const agentKey = firstSome(own.apiKey, openAiKey)
  const toolBaseUrl = Option.isSome(tool.baseUrl) ? yield* checkUrl("VTREE_TOOL_LLM_BASE_URL", tool.baseUrl.value) : agentBaseUrl
  const thinking = yield* thinkingDialect
  const agentTimeout = yield* seconds("VTREE_LLM_TIMEOUT_SECONDS", 180)
  const toolTimeout = yield* seconds("VTREE_TOOL_LLM_TIMEOUT_SECONDS", 120)
  return Option.some<LlmConfig>({
    agent: { provider: "llm", baseUrl: agentBaseUrl, apiKey: agentKey, model: agentModel.value, timeout: agentTimeout },
    tool: {
      provider: "tool-llm",
      baseUrl: toolBaseUrl,
      // A key meant for one host is never sent to another the user named separately.
      apiKey: Option.isSome(tool.baseUrl) && toolBaseUrl !== agentBaseUrl ? tool.apiKey : firstSome(tool.apiKey, agentKey),
      model: Option.getOrElse(tool.model, () => agentModel.value),
      timeout: toolTimeout
    },
    thinking,
    reliability: yield* reliability
  })
})

const loadVlm = (llm: Option.Option<LlmConfig>) =>
  Effect.gen(function*() {
    const own = yield* rawEndpoint("VTREE_VLM")
    const agent = Option.map(llm, (config) => config.agent)
    if (Option.isNone(own.model) && Option.isNone(agent)) {
      if (Option.isSome(own.baseUrl)) {
        return yield* new ConfigurationError({
          variable: "VTREE_VLM_MODEL",
          message: "VTREE_VLM_BASE_URL is set but VTREE_VLM_MODEL is not: set VTREE_VLM_MODEL to the vision model name"
        })
      }
      return Option.none<VlmConfig>()
    }
    const baseUrl = Option.isSome(own.baseUrl)
      ? yield* checkUrl("VTREE_VLM_BASE_URL", own.baseUrl.value)
      : Option.match(agent, { onNone: () => defaultOpenAiBaseUrl, onSome: (a) => a.baseUrl })
    const inheritedKey = Option.flatMap(agent, (a) => (a.baseUrl === baseUrl ? a.apiKey : Option.none()))
    const model = Option.getOrElse(own.model, () => Option.getOrThrow(agent).model)
    return Option.some<VlmConfig>({
      endpoint: {
        provider: "vlm",
        baseUrl,
        apiKey: firstSome(own.apiKey, inheritedKey),
        model,
        timeout: yield* seconds("VTREE_VLM_TIMEOUT_SECONDS", 180)
      },
      thinking: yield* thinkingDialect,
      maxImageBytes: yield* wholeNumber("VTREE_VLM_MAX_IMAGE_BYTES", 10 * 1024 * 1024),
      reliability: yield* reliability
    })
  })

const loadEmbedding = (llm: Option.Option<LlmConfig>) =>
  Effect.gen(function*() {
    const own = yield* rawEndpoint("VTREE_EMBED")
    if (Option.isNone(own.model) && Option.isNone(own.baseUrl)) return Option.none<EmbeddingConfig>()
    if (Option.isNone(own.model)) {
      return yield* new ConfigurationError({
        variable: "VTREE_EMBED_MODEL",
        message: "VTREE_EMBED_BASE_URL is set but VTREE_EMBED_MODEL is not: set VTREE_EMBED_MODEL to the embedding model name, or unset VTREE_EMBED_BASE_URL to use BM25"
      })
    }
    const agent = Option.map(llm, (config) => config.agent)
    const baseUrl = Option.isSome(own.baseUrl)
      ? yield* checkUrl("VTREE_EMBED_BASE_URL", own.baseUrl.value)
      : Option.match(agent, { onNone: () => defaultOpenAiBaseUrl, onSome: (a) => a.baseUrl })
    const inheritedKey = Option.flatMap(agent, (a) => (a.baseUrl === baseUrl ? a.apiKey : Option.none()))
    const dimensions = yield* Effect.flatMap(text("VTREE_EMBED_DIMENSIONS"), (raw) =>
      Option.isNone(raw)
        ? Effect.succeed(undefined)
        : positiveNumber("VTREE_EMBED_DIMENSIONS", raw, 0, true))
    return Option.some<EmbeddingConfig>({
      endpoint: {
        provider: "embed",
        baseUrl,
        apiKey: firstSome(own.apiKey, inheritedKey),
        model: own.model.value,
        timeout: yield* seconds("VTREE_EMBED_TIMEOUT_SECONDS", 60)
      },
      dimensions,
      batchSize: Math.min(64, yield* wholeNumber("VTREE_EMBED_BATCH_SIZE", 64)),
      reliability: yield* reliability
    })
  })

const loadOcr = Effect.gen(function*() {
  const raw = yield* text("VTREE_OCR_URLS")
  if (Option.isNone(raw)) return Option.none<OcrConfig>()
  const urls: Array<string> = []
  for (const part of raw.value.split(",")) {
    const trimmed = part.trim()
    if (trimmed !== "") urls.push(yield* checkUrl("VTREE_OCR_URLS", trimmed))
  }
  if (urls.length === 0) return Option.none<OcrConfig>()
  return Option.some<OcrConfig>({
    urls,
    timeout: yield* seconds("VTREE_OCR_TIMEOUT_SECONDS", 60),
    reliability: yield* reliability
  })
})

/** Reads DESIGN §4 from the current ConfigProvider (the environment by default). */
export const loadProvidersConfig: Effect.Effect<ProvidersConfig, ConfigurationError> = asConfigurationError(
  Effect.gen(function*() {
    const llm = yield* loadLlm
    return {
      llm,
      vlm: yield* loadVlm(llm),
      embedding: yield* loadEmbedding(llm),
      ocr: yield* loadOcr
    }
  })
)

const required = <A>(option: Option.Option<A>, variable: string, what: string) =>
  Option.match(option, {
    onSome: Effect.succeed,
    onNone: () =>
      Effect.fail(new ConfigurationError({ variable, message: `${what} is not configured: set ${variable}` }))
  })

/** The LLM settings, or an error naming the variable to set. */
export const loadLlmConfig: Effect.Effect<LlmConfig, ConfigurationError> = Effect.flatMap(
  loadProvidersConfig,
  (config) => required(config.llm, "VTREE_LLM_MODEL", "the LLM")
)

export const loadVlmConfig: Effect.Effect<VlmConfig, ConfigurationError> = Effect.flatMap(
  loadProvidersConfig,
  (config) => required(config.vlm, "VTREE_VLM_MODEL (or VTREE_LLM_MODEL)", "the vision model")
)

export const loadEmbeddingConfig: Effect.Effect<EmbeddingConfig, ConfigurationError> = Effect.flatMap(
  loadProvidersConfig,
  (config) => required(config.embedding, "VTREE_EMBED_MODEL", "the embedding endpoint")
)

export const loadOcrConfig: Effect.Effect<OcrConfig, ConfigurationError> = Effect.flatMap(
  loadProvidersConfig,
  (config) => required(config.ocr, "VTREE_OCR_URLS", "MonkeyOCR")
)
