import type * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import { Clock, Console, Duration, Effect, Option, Schema } from "effect"
import { type ConfigurationError } from "../../config/ConfigurationError.js"
import {
  configurationHelp,
  type EndpointConfig,
  loadRoleConfigs,
  type ProvidersConfig,
  type ReliabilityConfig
} from "../../config/ProviderConfig.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import { isSuspiciousSecret, minimumSecretLength } from "../../domain/Secret.js"
import { describeDialect, detectDialect } from "../../layers/openai/Dialect.js"
import { endpointUrls } from "../../layers/openai/OpenAiClient.js"
import * as OpenAiEmbedding from "../../layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../../layers/openai/OpenAiLlm.js"
import * as OpenAiVlm from "../../layers/openai/OpenAiVlm.js"
import * as TesseractOcr from "../../layers/tesseract/TesseractOcr.js"
import { alignColumns } from "../../text/TextTable.js"

export interface DoctorRow {
  readonly provider: string
  readonly model: string
  readonly endpoint: string
  /** The request dialect detected for a chat endpoint (Dialect.ts); absent for the others. */
  readonly dialect?: string
  readonly latencyMs: number
  /** "ok", or the ProviderError reason. */
  readonly result: string
  /** The error message (keys already scrubbed), when the check failed. */
  readonly detail: string | undefined
}

/** Why `vtree doctor` failed: nothing to check, or at least one provider check did not answer "ok". */
export const DoctorFailedReason = Schema.Literal("NothingConfigured", "ChecksFailed")
export type DoctorFailedReason = typeof DoctorFailedReason.Type

export class DoctorFailed extends Schema.TaggedError<DoctorFailed>()("DoctorFailed", {
  reason: DoctorFailedReason,
  message: Schema.String
}) {}

// A health check should answer in seconds and say what is wrong, not sit through the run's backoff.
const checkReliability: ReliabilityConfig = { concurrency: 1, retries: 0 }
const checkTimeout = Duration.seconds(30)
const quick = (endpoint: EndpointConfig): EndpointConfig => ({
  ...endpoint,
  timeout: Duration.min(endpoint.timeout, checkTimeout)
})
/** Each replica of a role is checked on its own: the row says which one is down. */
const replicas = (endpoint: EndpointConfig): ReadonlyArray<EndpointConfig> =>
  endpointUrls(endpoint).map((baseUrl) => {
    const { baseUrls: _all, ...single } = endpoint
    return { ...single, baseUrl }
  })
const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}
const ping = [{ role: "user" as const, content: "Reply with the single word OK." }]

const timed = <R>(
  row: Pick<DoctorRow, "provider" | "model" | "endpoint" | "dialect">,
  check: Effect.Effect<unknown, ProviderError | string, R>
): Effect.Effect<DoctorRow, never, R> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const outcome = yield* Effect.either(check)
    const latencyMs = (yield* Clock.currentTimeMillis) - start
    return outcome._tag === "Right"
      ? { ...row, latencyMs, result: "ok", detail: undefined }
      : typeof outcome.left === "string"
      ? { ...row, latencyMs, result: "Transport", detail: outcome.left }
      : { ...row, latencyMs, result: outcome.left.reason, detail: outcome.left.message.replace(/^[\w-]+: /, "") }
  })

type Check = Effect.Effect<DoctorRow, never, FileSystem.FileSystem | HttpClient.HttpClient>
type Configured<K extends keyof ProvidersConfig> = Option.Option.Value<ProvidersConfig[K]>

/** A chat check per replica of the agent role, then of the tool role. */
const llmChecks = (config: Configured<"llm">) =>
  Effect.gen(function*() {
    const checks: Array<Check> = []
    const llmConfig = {
      ...config,
      agent: quick(config.agent),
      tool: quick(config.tool),
      reliability: checkReliability
    }
    for (const role of ["agent", "tool"] as const) {
      for (const endpoint of replicas(llmConfig[role])) {
        const llm = yield* OpenAiLlm.make({ ...llmConfig, [role]: endpoint })
        checks.push(timed(
          {
            provider: role === "agent" ? "llm (agent)" : "llm (tool)",
            model: endpoint.model,
            endpoint: hostOf(endpoint.baseUrl),
            dialect: describeDialect(detectDialect(endpoint, llmConfig.thinking))
          },
          // Thinking off: the check is whether the endpoint answers, not how well the model reasons. No
          // token cap: reasoning models that think anyway would spend it before answering, and a cap in
          // the wrong field (a misdetected dialect) would report a healthy endpoint as broken.
          llm.chat({ role, messages: ping, thinking: false })
        ))
      }
    }
    return checks
  })

const vlmChecks = (config: Configured<"vlm">) =>
  Effect.forEach(replicas(quick(config.endpoint)), (endpoint) =>
    Effect.map(
      OpenAiVlm.make({ ...config, endpoint, reliability: checkReliability }),
      (vlm): Check =>
        timed(
          {
            provider: "vlm",
            model: endpoint.model,
            endpoint: hostOf(endpoint.baseUrl),
            dialect: describeDialect(detectDialect(endpoint, config.thinking))
          },
          vlm.chatWithImages({ system: "You check that a service is up.", text: ping[0]!.content, images: [] })
        )
    ))

const embeddingChecks = (config: Configured<"embedding">) =>
  Effect.forEach(replicas(quick(config.endpoint)), (endpoint) =>
    Effect.map(
      OpenAiEmbedding.make({ ...config, endpoint, reliability: checkReliability }),
      (embedder): Check =>
        timed(
          { provider: "embed", model: endpoint.model, endpoint: hostOf(endpoint.baseUrl) },
          embedder.embed(["ping"])
        )
    ))

/** Tesseract: the engine starts; MonkeyOCR: each server's `/health` answers 2xx within 10 s. */
const ocrChecks = (config: Configured<"ocr">) =>
  Effect.gen(function*() {
    const checks: Array<Check> = []
    if (config.engine === "tesseract") {
      const { langs } = config.tesseract
      // Starts one worker with the trained data and stops it: what the first OCR'd frame of a run pays.
      checks.push(timed(
        { provider: "ocr", model: TesseractOcr.modelName(langs), endpoint: "embedded" },
        TesseractOcr.checkEngine(langs)
      ))
    }
    if (config.engine === "monkeyocr") {
      const http = yield* HttpClient.HttpClient
      for (const url of config.monkeyocr.urls) {
        checks.push(timed(
          { provider: "ocr", model: "monkeyocr", endpoint: hostOf(url) },
          http.get(`${url}/health`).pipe(
            Effect.mapError((error) => error.message),
            Effect.flatMap((response) =>
              response.status >= 200 && response.status < 300
                ? Effect.void
                : Effect.fail(`/health answered HTTP ${response.status}`)
            ),
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "/health gave no answer within 10s" })
          )
        ))
      }
    }
    return checks
  })

/** One tiny call per configured provider (OCR: `/health`), in a fixed order. */
export const runChecks = (
  config: ProvidersConfig
): Effect.Effect<ReadonlyArray<DoctorRow>, never, FileSystem.FileSystem | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const checks: ReadonlyArray<Check> = [
      ...(Option.isSome(config.llm) ? yield* llmChecks(config.llm.value) : []),
      ...(Option.isSome(config.vlm) ? yield* vlmChecks(config.vlm.value) : []),
      ...(Option.isSome(config.embedding) ? yield* embeddingChecks(config.embedding.value) : []),
      ...(Option.isSome(config.ocr) ? yield* ocrChecks(config.ocr.value) : [])
    ]
    return yield* Effect.all(checks, { concurrency: "unbounded" })
  })

/** A plain aligned table; details of failures follow it, one line each. */
export const formatDoctorTable = (rows: ReadonlyArray<DoctorRow>): string => {
  const header = ["provider", "model", "endpoint", "dialect", "latency", "result"]
  const cells = rows.map((
    row
  ) => [row.provider, row.model, row.endpoint, row.dialect ?? "-", `${row.latencyMs} ms`, row.result])
  const details = rows.flatMap((row) => (row.detail === undefined ? [] : [`${row.provider}: ${row.detail}`]))
  return [...alignColumns([header, ...cells]), ...(details.length > 0 ? ["", ...details] : [])].join("\n")
}

const keyVariables: Record<string, string> = {
  llm: "VTREE_LLM_API_KEY (or OPENAI_API_KEY)",
  "tool-llm": "VTREE_TOOL_LLM_API_KEY",
  vlm: "VTREE_VLM_API_KEY",
  embed: "VTREE_EMBED_API_KEY"
}

/**
 * A warning per role whose key is too short to be real: vtree does not mask such a key in messages
 * (masking `e` would mangle every word with an e in it), so the user should know it is there.
 */
export const suspiciousKeys = (config: ProvidersConfig): ReadonlyArray<string> => {
  const endpoints = [
    ...Option.match(config.llm, { onNone: () => [], onSome: (llm) => [llm.agent, llm.tool] }),
    ...Option.match(config.vlm, { onNone: () => [], onSome: (vlm) => [vlm.endpoint] }),
    ...Option.match(config.embedding, { onNone: () => [], onSome: (embedding) => [embedding.endpoint] })
  ]
  return endpoints
    .filter((endpoint) => Option.exists(endpoint.apiKey, isSuspiciousSecret))
    .map((endpoint) =>
      `warning: the ${endpoint.provider} API key is shorter than ${minimumSecretLength} characters — no provider issues keys ` +
      `that short, and vtree does not mask one in messages; check ${
        keyVariables[endpoint.provider] ?? "its *_API_KEY variable"
      }`
    )
}

/**
 * Each role's settings, loaded on its own: a broken one becomes its own failed row (`Configuration`)
 * and the other roles are still checked.
 */
const loadRoles = Effect.gen(function*() {
  const broken: Array<DoctorRow> = []
  const settle = <A>(provider: string, load: Effect.Effect<Option.Option<A>, ConfigurationError>) =>
    Effect.catchAll(load, (error) =>
      Effect.sync(() => {
        broken.push({
          provider,
          model: "-",
          endpoint: "-",
          latencyMs: 0,
          result: "Configuration",
          detail: error.message
        })
        return Option.none<A>()
      }))
  const config: ProvidersConfig = {
    llm: yield* settle("llm", loadRoleConfigs.llm),
    vlm: yield* settle("vlm", loadRoleConfigs.vlm),
    embedding: yield* settle("embed", loadRoleConfigs.embedding),
    ocr: yield* settle("ocr", loadRoleConfigs.ocr)
  }
  return { config, broken }
})

/** `vtree doctor` without the CLI around it: prints the table, fails when anything failed. */
export const doctor = Effect.gen(function*() {
  const { broken, config } = yield* loadRoles
  // The embedded OCR is on by default, so on its own it does not make a configuration worth checking.
  const monkeyOcr = Option.exists(config.ocr, (ocr) => ocr.engine === "monkeyocr")
  const configured = monkeyOcr ||
    [config.llm, config.vlm, config.embedding].some((option: Option.Option<unknown>) => Option.isSome(option))
  if (!configured && broken.length === 0) {
    return yield* new DoctorFailed({
      reason: "NothingConfigured",
      message: `no provider is configured: ${configurationHelp}`
    })
  }
  const rows = [...broken, ...(yield* runChecks(config))]
  const warnings = suspiciousKeys(config)
  yield* Console.log([formatDoctorTable(rows), ...(warnings.length > 0 ? ["", ...warnings] : [])].join("\n"))
  const failed = rows.filter((row) => row.result !== "ok")
  if (failed.length > 0) {
    return yield* new DoctorFailed({
      reason: "ChecksFailed",
      message: `${failed.length} of ${rows.length} provider checks failed: ${
        failed.map((row) => `${row.provider} (${row.result})`).join(", ")
      }`
    })
  }
})
