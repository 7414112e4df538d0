// Video-MME-v2's word-level subtitles (`<video_id>.jsonl` of {text, start_time, end_time}) grouped into cues,
// and read by the builder from --subtitles-dir like the other subtitle files.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { wordCues } from "../../../src/programs/benchmarks/VideoMmeV2Subtitles.js"
import { resolveSubtitles } from "../../../src/programs/builder/Subtitles.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const words = (...entries: ReadonlyArray<readonly [string, number, number]>) =>
  entries.map(([text, start_time, end_time]) => JSON.stringify({ text, start_time, end_time })).join("\n") + "\n"

describe("word-level subtitles into cues", () => {
  it("a pause over one second starts a new cue; words join with spaces", () => {
    const cues = wordCues(
      "001.jsonl",
      words(["Hello", 0.5, 0.8], ["world", 0.8, 1.1], ["again", 2.2, 2.6], ["here", 2.7, 3])
    )
    assert.deepStrictEqual(
      cues,
      Either.right([
        { start: 0.5, end: 1.1, text: "Hello world" },
        { start: 2.2, end: 3, text: "again here" }
      ])
    )
  })

  it("a cue holds at most 20 words and spans at most 7 seconds", () => {
    const steady = Array.from({ length: 25 }, (_, i) => [`w${i}`, i * 0.2, i * 0.2 + 0.2] as const)
    const byWords = Either.getOrThrow(wordCues("a.jsonl", words(...steady)))
    assert.deepStrictEqual(byWords.map((c) => c.text.split(" ").length), [20, 5])
    const slow = Array.from({ length: 10 }, (_, i) => [`s${i}`, i, i + 0.9] as const)
    const bySpan = Either.getOrThrow(wordCues("b.jsonl", words(...slow)))
    // s0 … s6 end by 6.9 s; s7 would end at 7.9 s, past 7 s from the cue's start.
    assert.deepStrictEqual(bySpan.map((c) => [c.start, c.end]), [[0, 6.9], [7, 9.9]])
  })

  it("words out of order are sorted; blank words dropped; a bad line names the file and the line", () => {
    const cues = wordCues("c.jsonl", words(["second", 1, 1.5], ["first", 0, 0.5], ["  ", 0.6, 0.7]))
    assert.deepStrictEqual(cues, Either.right([{ start: 0, end: 1.5, text: "first second" }]))
    const bad = wordCues("d.jsonl", `${words(["ok", 0, 1])}{"text": "x", "start_time": "soon"}\n`)
    assert.isTrue(Either.isLeft(bad))
    if (Either.isLeft(bad)) {
      assert.strictEqual(bad.left.reason, "Syntax")
      assert.strictEqual(
        bad.left.message,
        `d.jsonl:2: expected {"text", "start_time", "end_time"} (times in seconds) — fix the line or remove the file`
      )
    }
    assert.deepStrictEqual(wordCues("e.jsonl", ""), Either.right([]))
  })
})

describe("vtree build --subtitles-dir with Video-MME-v2's <video_id>.jsonl", () => {
  const probe = Layer.succeed(
    MediaProbe,
    MediaProbe.of({
      probe: (path) =>
        Effect.succeed({ path, sizeBytes: 1, durationSeconds: 10, width: 320, height: 180, streams: [] }),
      subtitleStream: () => Effect.succeed([]),
      extractAudio: () => Effect.void
    })
  )

  it.effect("reads <video_id>.jsonl from the folder as cues", () =>
    Effect.gen(function*() {
      const dir = makeTempDir("word-subs")
      try {
        const video = join(dir, "001.mp4")
        writeFileSync(video, "not read by the fake")
        writeFileSync(join(dir, "001.jsonl"), words(["Hello", 0.5, 0.8], ["world", 0.8, 1.1]))
        const resolved = yield* resolveSubtitles({ video, videoId: "001", subtitlesDir: dir })
        assert.strictEqual(resolved.source, "dir")
        assert.deepStrictEqual(resolved.cues, [{ start: 0.5, end: 1.1, text: "Hello world" }])
      } finally {
        removeTempDir(dir)
      }
    }).pipe(Effect.provide(Layer.merge(probe, NodeContext.layer))))
})
