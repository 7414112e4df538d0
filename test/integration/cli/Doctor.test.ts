import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { closedPort, runDoctor } from "../../support/cli/Doctor.js"

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
      assert.match(
        error.message,
        /^4 of 4 provider checks failed: ocr \(Configuration\), llm \(agent\) \(\w+\), llm \(tool\) \(\w+\), vlm \(\w+\)$/
      )
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
