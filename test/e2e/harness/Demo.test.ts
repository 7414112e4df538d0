import { assert, describe, it } from "@effect/vitest"
import { runDemo } from "../../support/harness/Demo.js"

// The README's first command is `npm ci && npm run demo`; this keeps it true. (The global setup has
// built dist/, which is what `npm run demo` builds before running the same script.)
describe("npm run demo", () => {
  it("runs vtree infer on the sample against the simulator, then the report", async () => {
    // As on a machine without ffmpeg: the build step is skipped (test/e2e/build/BuildDemo.test.ts runs it).
    const result = await runDemo({ VTREE_FFMPEG: "/nonexistent/ffmpeg" })
    assert.strictEqual(result.code, 0, result.stderr)
    // The summary of `infer`, then the same run as `vtree report` shows it.
    const summaries = result.stdout.match(/^Run run-\S+ · completed/gm) ?? []
    assert.strictEqual(summaries.length, 2, result.stdout)
    assert.match(result.stdout, /^finished\s+7$/m)
    assert.match(result.stderr, /demo: simulator at http:\/\/127\.0\.0\.1:\d+\/v1/)
    assert.match(
      result.stderr,
      /^demo: ffmpeg not found — skipping vtree build, using the prebuilt tree in samples\/trees/m
    )
  }, 120_000)
})
