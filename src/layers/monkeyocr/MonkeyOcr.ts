import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Either, Layer, Option, Ref, Schema, Stream } from "effect"
import * as Path from "node:path"
import { type ConfigurationError } from "../../config/ConfigurationError.js"
import { loadOcrConfig, type OcrConfig } from "../../config/ProviderConfig.js"
import { ProviderError } from "../../domain/ProviderError.js"
import { OCRProvider } from "../../services/OCRProvider.js"
import { reasonForStatus } from "../openai/OpenAiErrors.js"
import { defaultMaxReplyBytes } from "../shared/BoundedFetch.js"
import { readFrame, transcribeEach } from "../shared/OcrTranscript.js"
import { type ProviderPolicy, reported, withPolicy } from "../shared/Reliability.js"

const provider = "ocr"

/** MonkeyOCR's `/ocr/text` reply. */
const OcrReply = Schema.Struct({
  success: Schema.Boolean,
  content: Schema.optional(Schema.NullOr(Schema.String)),
  message: Schema.optional(Schema.NullOr(Schema.String))
})

const fail = (reason: ProviderError["reason"], message: string, status?: number) =>
  new ProviderError({
    provider,
    reason,
    message: `${provider}: ${message}`,
    ...(status === undefined ? {} : { status })
  })

/**
 * A reply's body as text, read as a stream and refused past `maxBytes` (decompressed) before it is
 * decoded: an endless reply would otherwise grow the process until it dies.
 */
const cappedText = (url: string, body: Stream.Stream<Uint8Array, unknown>, maxBytes: number) =>
  body.pipe(
    Stream.mapError(() => fail("Transport", `${url}: the reply broke off`)),
    Stream.runFoldEffect({ chunks: [] as Array<Uint8Array>, bytes: 0 }, (read, chunk) => {
      const bytes = read.bytes + chunk.length
      if (bytes > maxBytes) {
        return Effect.fail(
          fail(
            "BadResponse",
            `${url}: the reply was over the ${
              Math.round((maxBytes / 1024 / 1024) * 100) / 100
            } MiB cap (VTREE_PROVIDER_MAX_REPLY_BYTES) — check the server, or raise the cap`
          )
        )
      }
      read.chunks.push(chunk)
      return Effect.succeed({ chunks: read.chunks, bytes })
    }),
    Effect.map((read) => Buffer.concat(read.chunks, read.bytes).toString("utf8"))
  )

/** Health checks get a short leash: a server that cannot answer /health in time is not one to queue frames on. */
const healthTimeout = Duration.seconds(10)

/**
 * An OCRProvider over one or more MonkeyOCR servers. Endpoints are health-checked once at start
 * (unhealthy ones are skipped), frames go round-robin and concurrently, and a frame that fails is
 * tried once more on the next endpoint before it is left out of the transcript.
 *
 * Provide `NodeHttpClient.layer` or `FetchHttpClient.layer` for the HttpClient: on Node 20,
 * `NodeHttpClient.layerUndici` (undici 7) cannot send the global FormData the upload is built from.
 */
export const make = Effect.fn("MonkeyOcr.make")(function*(config: OcrConfig) {
  const http = yield* HttpClient.HttpClient
  const fs = yield* FileSystem.FileSystem

  const health = yield* Effect.forEach(config.urls, (url) =>
    http.get(`${url}/health`).pipe(
      Effect.flatMap((response) =>
        response.status >= 200 && response.status < 300 ? Effect.void : Effect.fail(`HTTP ${response.status}`)
      ),
      Effect.timeoutFail({ duration: healthTimeout, onTimeout: () => "no answer within 10s" }),
      Effect.mapError((error) => (typeof error === "string" ? error : error.message)),
      Effect.either,
      Effect.map((result) => ({ url, problem: Either.isLeft(result) ? Option.some(result.left) : Option.none() }))
    ), { concurrency: "unbounded" })
  const healthy = health.filter((entry) => Option.isNone(entry.problem)).map((entry) => entry.url)
  const unhealthy = health.flatMap((entry) =>
    Option.match(entry.problem, { onNone: () => [], onSome: (problem) => [`${entry.url} (${problem})`] })
  )
  if (healthy.length === 0) {
    return yield* fail(
      "Transport",
      `no MonkeyOCR endpoint is healthy: ${unhealthy.join("; ")} — start MonkeyOCR or fix VTREE_OCR_URLS`
    )
  }
  if (unhealthy.length > 0) {
    yield* Effect.logWarning("skipping unhealthy MonkeyOCR endpoints").pipe(
      Effect.annotateLogs({ endpoints: unhealthy.join("; ") })
    )
  }

  const maxReplyBytes = config.reliability.maxReplyBytes ?? defaultMaxReplyBytes
  const semaphore = yield* Effect.makeSemaphore(config.reliability.concurrency)
  // Each attempt gets the shared policy's cap and timeout; the retry is the move to the next endpoint.
  const policy: ProviderPolicy = { provider, semaphore, timeout: config.timeout, retries: 0 }
  const next = yield* Ref.make(0)

  const recognize = (url: string, path: string, bytes: Uint8Array) => {
    const form = new FormData()
    form.append("file", new Blob([bytes]), Path.basename(path))
    return http.execute(HttpClientRequest.post(`${url}/ocr/text`).pipe(HttpClientRequest.bodyFormData(form))).pipe(
      Effect.mapError((error) => fail("Transport", `${url}: ${error.message}`)),
      Effect.flatMap((response) =>
        response.status >= 200 && response.status < 300
          ? cappedText(url, response.stream, maxReplyBytes).pipe(
            Effect.flatMap((text) =>
              Effect.try({
                try: () => JSON.parse(text) as unknown,
                catch: () => fail("BadResponse", `${url}: the reply is not JSON`)
              })
            ),
            Effect.flatMap(Schema.decodeUnknown(OcrReply)),
            Effect.mapError((error) =>
              error instanceof ProviderError
                ? error
                : fail("BadResponse", `${url}: unexpected reply shape (${error.message})`)
            )
          )
          : Effect.fail(fail(reasonForStatus(response.status), `${url}: HTTP ${response.status}`, response.status))
      ),
      Effect.flatMap((reply) =>
        reply.success
          ? Effect.succeed(reply.content ?? "")
          : Effect.fail(fail("Server", `${url}: recognition failed (${reply.message ?? "no message"})`))
      ),
      withPolicy(policy)
    )
  }

  const frame = (path: string) =>
    Effect.gen(function*() {
      const bytes = yield* readFrame(fs, provider, path)
      const first = (yield* Ref.getAndUpdate(next, (n) => n + 1)) % healthy.length
      return yield* recognize(healthy[first]!, path, bytes).pipe(
        Effect.catchAll(() => recognize(healthy[(first + 1) % healthy.length]!, path, bytes))
      )
    }).pipe(reported({ role: "ocr", model: "monkeyocr" }, () => ({ promptTokens: 0, completionTokens: 0 }), {
      provider: "monkeyocr"
    }))

  const transcribeFrames = Effect.fn("MonkeyOcr.transcribeFrames")((paths: ReadonlyArray<string>) =>
    transcribeEach(provider, paths, frame)
  )

  return OCRProvider.of({ transcribeFrames })
})

/** The OCR port over the MonkeyOCR servers `config` names. */
export const layer = (
  config: OcrConfig
): Layer.Layer<OCRProvider, ProviderError, HttpClient.HttpClient | FileSystem.FileSystem> =>
  Layer.effect(OCRProvider, make(config))

/** Reads VTREE_OCR_URLS; only provide it when OCR is configured. */
export const layerConfig: Layer.Layer<
  OCRProvider,
  ConfigurationError | ProviderError,
  HttpClient.HttpClient | FileSystem.FileSystem
> = Layer.effect(OCRProvider, Effect.flatMap(loadOcrConfig, make))
