import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type AsrConfig, loadAsrConfig } from "../../../src/config/AsrConfig.js"
import * as OpenAiSpeech from "../../../src/layers/openai/OpenAiSpeech.js"
import { MemoryCallLog } from "../../../src/layers/testing/MemoryCallLog.js"
import { SpeechToText } from "../../../src/services/SpeechToText.js"
import * as Sim from "../../support/openai-sim/index.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

/** A silent 16 kHz mono 16-bit WAV of `seconds`, as ffmpeg writes for a chunk. */
const wav = (seconds: number): Buffer => {
  const data = Math.round(seconds * 32_000)
  const header = Buffer.alloc(44)
  header.write("RIFF", 0)
  header.writeUInt32LE(36 + data, 4)
  header.write("WAVEfmt ", 8)
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(16_000, 24)
  header.writeUInt32LE(32_000, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write("data", 36)
  header.writeUInt32LE(data, 40)
  return Buffer.concat([header, Buffer.alloc(data)])
}

const config = (sim: Sim.OpenAiSim, overrides: Partial<AsrConfig> = {}): AsrConfig => ({
  baseUrl: sim.url,
  apiKey: Option.some(Redacted.make("sk-asr-secret")),
  model: "whisper-sim",
  timeout: Duration.seconds(60),
  maxUploadBytes: 1_000_000,
  language: Option.none(),
  reliability: { concurrency: 4, retries: 2 },
  ...overrides
})

const withSpeech = <A, E>(
  simOptions: Sim.SimOptions,
  overrides: Partial<AsrConfig>,
  body: (sim: Sim.OpenAiSim, dir: string) => Effect.Effect<A, E, SpeechToText>
) =>
  Effect.acquireUseRelease(
    Effect.promise(async () => ({
      sim: await Sim.start(simOptions),
      dir: makeTempDir("asr-test")
    })),
    ({ dir, sim }) =>
      body(sim, dir).pipe(
        Effect.provide(OpenAiSpeech.layer(config(sim, overrides)).pipe(Layer.provide(NodeContext.layer)))
      ),
    ({ dir, sim }) => Effect.promise(() => sim.close()).pipe(Effect.andThen(() => removeTempDir(dir)))
  )

describe("OpenAiSpeech over openai-sim (real HTTP)", () => {
  it.live("uploads the chunk as multipart verbose_json and reads the segments' times", () =>
    withSpeech({}, {}, (sim, dir) =>
      Effect.gen(function*() {
        const file = join(dir, "chunk-0000.wav")
        writeFileSync(file, wav(12))
        const speech = yield* SpeechToText
        const cues = yield* speech.transcribe(file)
        assert.deepStrictEqual(cues, [
          { start: 0, end: 5, text: "segment 0 of chunk-0000.wav" },
          { start: 5, end: 10, text: "segment 1 of chunk-0000.wav" },
          { start: 10, end: 12, text: "segment 2 of chunk-0000.wav" }
        ])
        const request = sim.requests[0]!
        assert.strictEqual(request.path, "/v1/audio/transcriptions")
        assert.strictEqual(request.model, "whisper-sim")
        assert.strictEqual(request.body["response_format"], "verbose_json")
        assert.strictEqual(request.body["timestamp_granularities[]"], "segment")
        assert.deepStrictEqual(request.body["file"], { name: "chunk-0000.wav", size: 44 + 12 * 32_000 })
        assert.strictEqual(request.headers["authorization"], "Bearer sk-asr-secret")
      })))

  it.effect("retries a 500 on the policy's schedule (TestClock), then succeeds with the scripted segments", () =>
    withSpeech(
      {
        transcriptions: {
          "whisper-sim": [
            { fault: "status", status: 500 },
            { segments: [{ start: 0.5, end: 2, text: " hello " }, { start: 2, end: 3, text: "  " }] }
          ]
        }
      },
      {},
      (sim, dir) =>
        Effect.gen(function*() {
          const file = join(dir, "a.wav")
          writeFileSync(file, wav(3))
          const speech = yield* SpeechToText
          const fiber = yield* Effect.fork(speech.transcribe(file))
          // The backoff sleeps on the TestClock: advance it until the second attempt reaches the sim.
          yield* TestClock.adjust("1 second").pipe(
            Effect.zipRight(Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))),
            Effect.repeat({ until: () => sim.requests.length >= 2 })
          )
          const cues = yield* Fiber.join(fiber)
          assert.deepStrictEqual(cues, [{ start: 0.5, end: 2, text: "hello" }])
          assert.strictEqual(sim.requests.length, 2)
        })
    ))

  it.live("an oversized chunk, a refused key and a reply that is not JSON fail with their reasons, the key never shown", () =>
    withSpeech(
      {
        transcriptions: {
          "whisper-sim": [{ fault: "status", status: 401, message: "bad key sk-asr-secret" }, { fault: "malformed" }]
        }
      },
      { maxUploadBytes: 64_000 },
      (sim, dir) =>
        Effect.gen(function*() {
          const speech = yield* SpeechToText
          const big = join(dir, "big.wav")
          writeFileSync(big, wav(3))
          const tooBig = yield* Effect.either(speech.transcribe(big))
          assert.isTrue(Either.isLeft(tooBig) && tooBig.left.reason === "BadRequest")
          assert.strictEqual(sim.requests.length, 0, "nothing uploaded")

          const small = join(dir, "small.wav")
          writeFileSync(small, wav(1))
          const auth = yield* Effect.either(speech.transcribe(small))
          assert.isTrue(Either.isLeft(auth))
          if (Either.isLeft(auth)) {
            assert.strictEqual(auth.left.reason, "Auth")
            assert.notInclude(auth.left.message, "sk-asr-secret")
          }
          const malformed = yield* Effect.either(speech.transcribe(small))
          assert.isTrue(Either.isLeft(malformed) && malformed.left.reason === "BadResponse")
          assert.strictEqual(sim.requests.length, 2, "neither is retried")
        })
    ))
})

describe("OpenAiSpeech on the shared call path", () => {
  it.live("reports each transcription to the call log: role asr, its model, endpoint, duration and status", () =>
    withSpeech(
      {
        transcriptions: {
          "whisper-sim": [{ segments: [{ start: 0, end: 1, text: "hi" }] }, { fault: "status", status: 400 }]
        }
      },
      { reliability: { concurrency: 1, retries: 0 } },
      (sim, dir) =>
        Effect.gen(function*() {
          const file = join(dir, "c.wav")
          writeFileSync(file, wav(1))
          const speech = yield* SpeechToText
          yield* speech.transcribe(file)
          const refused = yield* Effect.either(speech.transcribe(file))
          assert.isTrue(Either.isLeft(refused) && refused.left.reason === "BadRequest")
          const calls = yield* (yield* MemoryCallLog).entries
          assert.deepStrictEqual(
            calls.map(({ durationMs: _, startedAt: __, ...call }) => call),
            [
              {
                role: "asr",
                model: "whisper-sim",
                endpoint: sim.url,
                promptTokens: 0,
                completionTokens: 0,
                status: "ok",
                errorReason: null,
                questionId: null,
                parentStep: null,
                // One attempt each: a 400 is not retried.
                attempts: 1
              },
              {
                role: "asr",
                model: "whisper-sim",
                endpoint: sim.url,
                promptTokens: 0,
                completionTokens: 0,
                status: "error",
                errorReason: "BadRequest",
                questionId: null,
                parentStep: null,
                attempts: 1
              }
            ]
          )
          for (const call of calls) assert.isTrue(call.durationMs >= 0 && call.startedAt > 0)
        }).pipe(Effect.provide(MemoryCallLog.layer))
    ))
})

describe("loadAsrConfig", () => {
  const load = (env: Record<string, string>) =>
    Effect.either(Effect.withConfigProvider(loadAsrConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it.effect("off unless VTREE_ASR_BASE_URL or VTREE_ASR_MODEL is set; defaults stated", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* load({}), Either.right(Option.none()))
      const on = yield* load({ VTREE_ASR_MODEL: "whisper-1", VTREE_ASR_API_KEY: "k" })
      assert.isTrue(Either.isRight(on) && Option.isSome(on.right))
      if (Either.isRight(on) && Option.isSome(on.right)) {
        const asr = on.right.value
        assert.strictEqual(asr.baseUrl, "https://api.openai.com/v1")
        assert.strictEqual(asr.maxUploadBytes, 25_000_000)
        assert.strictEqual(Duration.toSeconds(asr.timeout), 300)
        assert.strictEqual(asr.reliability.retries, 4)
      }
    }))

  it.effect("an incomplete or malformed setting names its variable", () =>
    Effect.gen(function*() {
      const noModel = yield* load({ VTREE_ASR_BASE_URL: "http://127.0.0.1:9000/v1" })
      assert.isTrue(Either.isLeft(noModel) && noModel.left.variable === "VTREE_ASR_MODEL")
      const badUrl = yield* load({ VTREE_ASR_MODEL: "m", VTREE_ASR_BASE_URL: "ftp://x" })
      assert.isTrue(Either.isLeft(badUrl) && badUrl.left.variable === "VTREE_ASR_BASE_URL")
      const badSize = yield* load({ VTREE_ASR_MODEL: "m", VTREE_ASR_MAX_UPLOAD_BYTES: "lots" })
      assert.isTrue(Either.isLeft(badSize) && badSize.left.variable === "VTREE_ASR_MAX_UPLOAD_BYTES")
    }))
})
