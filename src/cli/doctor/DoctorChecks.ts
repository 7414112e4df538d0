// The provider checks of `vtree doctor`: one adapter built per replica of each configured role, as a run would
// build it but quick to give up, so the row says which one is down. The program around them is programs/doctor.
import type * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import { Duration, Effect, Option } from "effect"
import { type EndpointConfig, type ProvidersConfig, type ReliabilityConfig } from "../../config/ProviderConfig.js"
import { describeDialect, detectDialect } from "../../layers/openai/Dialect.js"
import { endpointUrls } from "../../layers/openai/OpenAiClient.js"
import * as OpenAiEmbedding from "../../layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../../layers/openai/OpenAiLlm.js"
import * as OpenAiVlm from "../../layers/openai/OpenAiVlm.js"
import * as TesseractOcr from "../../layers/tesseract/TesseractOcr.js"
import { type DoctorRow, runDoctor, timed } from "../../programs/doctor/Doctor.js"

// A health check should answer in seconds and say what is wrong, not sit through the run's backoff.
const checkReliability: ReliabilityConfig = { concurrency: 1, retries: 0 }
/** One attempt, one at a time; the configured reply cap still holds. */
const checkReliabilityOf = ({ maxReplyBytes }: ReliabilityConfig): ReliabilityConfig =>
  maxReplyBytes === undefined ? checkReliability : { ...checkReliability, maxReplyBytes }
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
      reliability: checkReliabilityOf(config.reliability)
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
      OpenAiVlm.make({ ...config, endpoint, reliability: checkReliabilityOf(config.reliability) }),
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
      OpenAiEmbedding.make({ ...config, endpoint, reliability: checkReliabilityOf(config.reliability) }),
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

/** `vtree doctor` without the CLI around it, checking each provider with the adapter a run would use. */
export const doctor = runDoctor(runChecks)
