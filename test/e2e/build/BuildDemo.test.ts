import { assert, describe, it } from "@effect/vitest"
import { runDemo } from "../../support/harness/Demo.js"

// `npm run demo` with ffmpeg present: it builds a tree from samples/video, then infers over it and the
// prebuilt sample tree, then reports. (The global setup has built dist/.)
describe("npm run demo (with ffmpeg)", () => {
  it("builds the sample video's tree, then infer and report run over both trees", async () => {
    const result = await runDemo()
    assert.strictEqual(result.code, 0, result.stderr)
    assert.match(result.stderr, /^demo: vtree build samples\/video\/vtDemo0001a\.mp4 --out /m)
    // The build's summary row: 30 s, 15 frames all sent, two vision calls or more, two text calls (the scene's
    // and the entity registry's).
    assert.match(result.stdout, /^vtDemo0001a\s+0\.5 min\s+15\s+\d+\s+1\s+\d+\s+2\s+0\s/m)
    const summaries = result.stdout.match(/^Run run-\S+ · completed/gm) ?? []
    assert.strictEqual(summaries.length, 2, result.stdout)
    assert.match(result.stdout, /^finished\s+9$/m)
    // Duration row: correct, wrong, unanswered, total.
    assert.match(result.stdout, /^short\s+\d+\s+\d+\s+\d+\s+2\s/m)
  }, 180_000)
})
