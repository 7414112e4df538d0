import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, Logger, LogLevel, Option, TestClock } from "effect"
import { runChecks } from "../../../src/cli/doctor/DoctorChecks.js"
import { loadProvidersConfig } from "../../../src/config/ProviderConfig.js"
import * as OpenAiLlm from "../../../src/layers/openai/OpenAiLlm.js"
import { formatDoctorTable } from "../../../src/programs/doctor/Doctor.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { runCli } from "../../support/cli/InProcess.js"
import * as OcrSim from "../../support/ocr-sim/index.js"
import * as OpenAiSim from "../../support/openai-sim/index.js"
import type { SimRequest } from "../../support/openai-sim/index.js"
import { sleepsAtLeast, waitFor, withSim } from "./support.js"

const secretKey = "sk-leaktest-7f3a9c21e4b5"

/** Runs `vtree …args` in-process with exactly `env` as its configuration. */
const vtree = (args: ReadonlyArray<string>, env: Record<string, string>) => Effect.promise(() => runCli(args, env))

/** A hostile server: its error text repeats whatever Authorization header it got. */
const echoAuth = (status: number) => (request: SimRequest) => ({
  fault: "status" as const,
  status,
  message: `Incorrect API key provided: ${String(request.headers["authorization"])}`
})

describe("vtree doctor", () => {
  it.scoped("with nothing configured it says which variables to set and exits 1", () =>
    Effect.gen(function*() {
      const result = yield* vtree(["doctor"], {})
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, "no provider is configured")
      assert.include(result.stderr, "VTREE_LLM_MODEL")
      assert.include(result.stderr, "VTREE_OCR_URLS")
    }))

  it.scoped("all providers answering: a table with one row per provider, exit 0", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "*": () => ({ content: "OK" }) } })
      const ocr = yield* Effect.acquireRelease(Effect.promise(() => OcrSim.start()), (server) =>
        Effect.promise(() => server.close()))
      const result = yield* vtree(["doctor"], {
        VTREE_LLM_BASE_URL: sim.url,
        VTREE_LLM_MODEL: "agent-model",
        VTREE_TOOL_LLM_MODEL: "tool-model",
        VTREE_VLM_MODEL: "vision-model",
        VTREE_EMBED_MODEL: "embed-model",
        VTREE_OCR_URLS: ocr.url
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const lines = result.stdout.trim().split("\n")
      assert.match(lines[0]!, /^provider\s+model\s+endpoint\s+dialect\s+latency\s+result$/)
      // A local server with no thinking dialect named: the plain compatible dialect, caps as max_tokens.
      assert.match(
        lines.find((line) =>
          line.startsWith("llm (agent)")
        )!,
        /\sopenai-compatible \(max_tokens\)\s/
      )
      assert.match(lines.find((line) => line.startsWith("embed"))!, /\s-\s+\d+ ms/)
      const host = new URL(sim.url).host
      for (
        const [provider, model] of [["llm (agent)", "agent-model"], ["llm (tool)", "tool-model"], [
          "vlm",
          "vision-model"
        ], ["embed", "embed-model"]]
      ) {
        const row = lines.find((line) => line.startsWith(provider))
        assert.isDefined(row, provider)
        assert.include(row!, model!)
        assert.include(row!, host)
        assert.match(row!, /\d+ ms\s+ok$/)
      }
      assert.match(lines.find((line) => line.startsWith("ocr"))!, /ok$/)
      assert.strictEqual(ocr.healthChecks, 1)
      assert.isTrue(sim.requests.some((request) => request.path === "/v1/embeddings"))
    }))

  it.scoped("an endless reply is cut at VTREE_PROVIDER_MAX_REPLY_BYTES: its row names the cap, exit 1", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": [{ fault: "endless" }] } })
      const result = yield* vtree(["doctor"], {
        VTREE_LLM_BASE_URL: sim.url,
        VTREE_LLM_MODEL: "agent-model",
        VTREE_PROVIDER_MAX_REPLY_BYTES: String(1024 * 1024)
      })
      assert.strictEqual(result.code, 1)
      assert.match(result.stdout.split("\n").find((line) => line.startsWith("llm (agent)"))!, /BadResponse$/)
      assert.include(result.stdout, "the reply was over the 1 MiB cap (VTREE_PROVIDER_MAX_REPLY_BYTES)")
      yield* waitFor(sim, () => sim.requests[0]!.aborted)
    }))

  it.scoped("a failing provider: its reason in the table, exit 1, and the key printed nowhere", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "agent-model": echoAuth(401) } })
      const result = yield* vtree(["doctor"], {
        VTREE_LLM_BASE_URL: sim.url,
        VTREE_LLM_MODEL: "agent-model",
        VTREE_LLM_API_KEY: secretKey,
        VTREE_EMBED_MODEL: "embed-model"
      })
      assert.strictEqual(result.code, 1)
      assert.match(result.stdout.split("\n").find((line) => line.startsWith("llm (agent)"))!, /Auth$/)
      assert.match(result.stdout.split("\n").find((line) => line.startsWith("embed"))!, /ok$/)
      assert.include(result.stdout, "Incorrect API key provided: Bearer [redacted]")
      assert.include(result.stderr, "provider checks failed")
      // The key did travel — to the server, where it belongs.
      assert.strictEqual(sim.requests[0]!.headers["authorization"], `Bearer ${secretKey}`)
      assert.notInclude(result.stdout + result.stderr, secretKey)
    }))
})

describe("secrets", () => {
  it.scoped("a key set in the environment appears in no ProviderError, log line or check row", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        chat: { "agent-model": (request, index) => echoAuth(index === 0 ? 503 : 401)(request) }
      })
      const env = ConfigProvider.fromMap(
        new Map([
          ["VTREE_LLM_BASE_URL", sim.url],
          ["VTREE_LLM_MODEL", "agent-model"],
          ["VTREE_LLM_API_KEY", secretKey],
          ["VTREE_PROVIDER_RETRIES", "1"]
        ])
      )
      const lines: Array<string> = []
      const capture = Logger.make((options) => {
        lines.push(Logger.logfmtLogger.log(options))
      })
      const failing = yield* Effect.flatMap(
        LLMProvider,
        (llm) => llm.chat({ role: "agent", messages: [{ role: "user", content: "hi" }] })
      ).pipe(
        Effect.provide(OpenAiLlm.layerConfig),
        Effect.catchTag("ConfigurationError", Effect.die),
        Effect.flip,
        Effect.tap((failure) => Effect.logError("chat failed", failure)),
        Logger.withMinimumLogLevel(LogLevel.All),
        Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
        Effect.withConfigProvider(env),
        Effect.fork
      )
      // The 503's backoff runs on the TestClock: the first attempt's timeout sleep, then the backoff.
      yield* waitFor(sim, () => sim.requests[0]?.answered === true)
      yield* sleepsAtLeast(2)
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(failing)
      assert.strictEqual(error.reason, "Auth")
      assert.strictEqual(sim.requests.length, 2, "the 503 was retried, so a retry warning was logged")
      assert.isTrue(lines.some((line) => line.includes("provider attempt failed")))
      const config = yield* loadProvidersConfig.pipe(Effect.withConfigProvider(env))
      const rows = yield* runChecks(config).pipe(
        Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodeHttpClient.layer))
      )
      const everything = [
        error.message,
        String(error),
        JSON.stringify(error),
        ...lines,
        formatDoctorTable(rows),
        JSON.stringify(Option.getOrThrow(config.llm))
      ].join("\n")
      assert.include(everything, "[redacted]")
      assert.notInclude(everything, secretKey)
    }))
})

describe("vtree doctor with replicas", () => {
  it.scoped("several base URLs: one row per replica, the one that is down named", () =>
    Effect.gen(function*() {
      const up = yield* withSim({ chat: { "*": () => ({ content: "OK" }) } })
      const down = yield* Effect.promise(() => OpenAiSim.start())
      const downUrl = down.url
      yield* Effect.promise(() => down.close())
      const env = ConfigProvider.fromMap(
        new Map([
          ["VTREE_LLM_BASE_URL", `${up.url},${downUrl}`],
          ["VTREE_LLM_MODEL", "agent-model"],
          ["VTREE_OCR", "off"]
        ])
      )
      const config = yield* loadProvidersConfig.pipe(Effect.withConfigProvider(env))
      const rows = yield* runChecks(config).pipe(
        Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodeHttpClient.layer))
      )
      const host = (url: string) => new URL(url).host
      assert.deepStrictEqual(
        rows.map((row) => [row.provider, row.endpoint, row.result]),
        [
          ["llm (agent)", host(up.url), "ok"],
          ["llm (agent)", host(downUrl), "Transport"],
          ["llm (tool)", host(up.url), "ok"],
          ["llm (tool)", host(downUrl), "Transport"],
          // The VLM falls back to the LLM's URLs.
          ["vlm", host(up.url), "ok"],
          ["vlm", host(downUrl), "Transport"]
        ]
      )
    }))
})
