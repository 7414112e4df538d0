import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Console, Effect, Layer } from "effect"
import { createServer } from "node:net"
import { doctor } from "../../../src/cli/Doctor.js"

/** A local port nothing listens on: taken from the OS, then let go. */
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

const runDoctor = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const printed: Array<string> = []
    const error = yield* doctor.pipe(
      (self) =>
        Console.consoleWith((console) =>
          Console.withConsole(self, { ...console, log: (...args) => Effect.sync(() => void printed.push(args.join(" "))) })
        ),
      Effect.flip,
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodeHttpClient.layer))
    )
    return { error, table: printed.join("\n") }
  })

describe("doctor", () => {
  it.live("a broken VTREE_OCR_URLS is its own failed row; the LLM is still checked", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const { error, table } = yield* runDoctor({
        VTREE_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`,
        VTREE_LLM_MODEL: "m",
        VTREE_OCR_URLS: "ocr-host:7861"
      })
      assert.match(table, /^ocr +- +- +- +0 ms +Configuration$/m)
      assert.match(table, /^llm \(agent\) +m +127\.0\.0\.1:/m)
      assert.include(table, "ocr: VTREE_OCR_URLS=\"ocr-host:7861\": expected comma-separated http(s) URLs")
      assert.match(error.message, /^4 of 4 provider checks failed: ocr \(Configuration\), llm \(agent\) \(\w+\), llm \(tool\) \(\w+\), vlm \(\w+\)$/)
    }))

  it.effect("only a broken role configured: the table shows it rather than 'nothing configured'", () =>
    Effect.gen(function*() {
      const { error, table } = yield* runDoctor({ VTREE_EMBED_BASE_URL: "http://e/v1" })
      assert.include(table, "embed: VTREE_EMBED_BASE_URL is set but VTREE_EMBED_MODEL is not")
      // The embedded OCR, on by default, is checked beside it.
      assert.include(table, "tesseract:eng")
      assert.strictEqual(error.message, "1 of 2 provider checks failed: embed (Configuration)")
    }))
})
