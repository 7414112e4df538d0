// The pure readers of `vtree tree import`: each layout read into captions with source times, the
// sniffer, the time grouping, and every refusal named by file and key.
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { readDvdCaptions, readDvdDatabase } from "../../../../src/programs/import/Dvd.js"
import { captionLines, groupCaptions } from "../../../../src/programs/import/Grouping.js"
import type { ImportedVideo, TreeImportError } from "../../../../src/programs/import/ImportedVideo.js"
import { readJsonl } from "../../../../src/programs/import/Jsonl.js"
import { readLlovi } from "../../../../src/programs/import/Llovi.js"
import { sniffJson, sniffLines } from "../../../../src/programs/import/Sniff.js"
import { readVideoAgent, readVideoAgentMemory } from "../../../../src/programs/import/VideoAgent.js"
import { readVideoRag } from "../../../../src/programs/import/VideoRag.js"

const ok = (result: Either.Either<ReadonlyArray<ImportedVideo>, TreeImportError>) => {
  if (Either.isLeft(result)) assert.fail(result.left.message)
  return (result as Either.Right<TreeImportError, ReadonlyArray<ImportedVideo>>).right
}
const refusal = (result: Either.Either<unknown, TreeImportError>) => {
  if (Either.isRight(result)) assert.fail("expected a refusal")
  return (result as Either.Left<TreeImportError, unknown>).left
}
const spans = (video: ImportedVideo) => video.captions.map((c) => [c.start, c.end, c.text])

describe("caption layouts", () => {
  it("reads LLoVi's list (one caption a second) and second-keyed object shapes in one file", () => {
    const [a, b] = ok(readLlovi("lavila.json", { a: ["#C C opens a door", "#C C walks"], b: { "0": "x", "3": "y" } }))
    assert.deepStrictEqual(spans(a!), [[0, 1, "#C C opens a door"], [1, 2, "#C C walks"]])
    assert.deepStrictEqual(spans(b!), [[0, 1, "x"], [3, 4, "y"]])
  })

  it("reads VideoAgent's per-video file and its memory layout with a frame rate", () => {
    const [v] = ok(readVideoAgent("clip7_cap.json", { "1": "b", "0": "a" }))
    assert.strictEqual(v!.videoId, "clip7")
    assert.deepStrictEqual(spans(v!), [[0, 1, "a"], [1, 2, "b"]])
    const [m] = ok(readVideoAgentMemory("m.json", { "0_30": "first", "30_90": "second" }, "m", 30))
    assert.deepStrictEqual(spans(m!), [[0, 1, "first"], [1, 3, "second"]])
  })

  it("refuses frame-numbered keys without a frame rate, naming --fps and --videos", () => {
    const error = refusal(readVideoAgentMemory("m.json", { "0_30": "x" }, "m", undefined))
    assert.strictEqual(error.reason, "BadOption")
    assert.match(error.message, /--fps N, or --videos DIR/)
  })

  it("reads DVD's captions.json with inclusive-second keys and its subject registry", () => {
    const [v] = ok(readDvdCaptions("captions.json", {
      "0_9": { caption: "A woman enters." },
      "10_19": { caption: ["She sits.", "She reads."] },
      character_registry: {
        p1: { name: "Anna", appearance: ["red coat"], identity: "the host", first_seen: "00:00:05" }
      }
    }, "dvd1"))
    assert.deepStrictEqual(spans(v!), [[0, 10, "A woman enters."], [10, 20, "She sits. She reads."]])
    assert.deepStrictEqual(v!.entities, [{
      id: "p1",
      name: "Anna",
      appearance: "red coat",
      identity: "the host",
      first_seen: 5
    }])
  })

  it("reads DVD's database: drops the [From … to …] prefix, ignores the matrix, takes video_length", () => {
    const [v] = ok(readDvdDatabase("database.json", {
      embedding_dim: 3,
      matrix: "AAAA",
      data: [{
        __id__: "x",
        time_start_secs: 0,
        time_end_secs: 10,
        caption: "[From 00:00:00 to 00:00:10] A dog runs."
      }],
      additional_data: { video_length: "00:02:00", subject_registry: { dog: { name: "Rex" } } }
    }, "dvd2"))
    assert.deepStrictEqual(spans(v!), [[0, 10, "A dog runs."]])
    assert.strictEqual(v!.durationSeconds, 120)
    assert.deepStrictEqual(v!.entities, [{ id: "dog", name: "Rex" }])
  })

  it("reads VideoRAG's segments with their transcripts as subtitles", () => {
    const [v] = ok(readVideoRag("kv_store_video_segments.json", {
      talk: { "0": { content: "A speaker at a desk.", time: "0-30", transcript: " hello  all " } }
    }))
    assert.deepStrictEqual(spans(v!), [[0, 30, "A speaker at a desk."]])
    assert.deepStrictEqual(v!.transcript, [{ start: 0, end: 30, text: "hello all" }])
  })

  it("reads jsonl lines of several videos in any order", () => {
    const videos = ok(readJsonl(
      "c.jsonl",
      [
        JSON.stringify({ video_id: "v", start: 5, end: 6, text: "later" }),
        "",
        JSON.stringify({ video_id: "v", start: 0, end: 2, text: "first" }),
        JSON.stringify({ video_id: 42, start: 0, end: 1, text: "other" })
      ].join("\n")
    ))
    assert.deepStrictEqual(videos.map((v) => [v.videoId, spans(v)]), [
      ["v", [[0, 2, "first"], [5, 6, "later"]]],
      ["42", [[0, 1, "other"]]]
    ])
  })
})

describe("layout sniffing", () => {
  it("tells every layout from its content", () => {
    assert.strictEqual(sniffJson("a.json", { u: ["x"] }), "llovi")
    assert.strictEqual(sniffJson("a.json", { u: { "0": "x" } }), "llovi")
    assert.strictEqual(sniffJson("v_cap.json", { "0": "x" }), "videoagent")
    assert.strictEqual(sniffJson("m.json", { "0_30": "x" }), "videoagent-memory")
    assert.strictEqual(sniffJson("captions.json", { "0_9": { caption: "x" }, subject_registry: {} }), "dvd")
    assert.strictEqual(sniffJson("database.json", { data: [{ time_start_secs: 0 }], matrix: "" }), "dvd")
    assert.strictEqual(sniffJson("kv.json", { v: { "0": { content: "x", time: "0-1" } } }), "videorag")
    assert.strictEqual(sniffLines("c.txt", "{\"video_id\": \"v\", \"start\": 0, \"end\": 1, \"text\": \"x\"}"), "jsonl")
  })

  it("knows no layout in a file of something else", () => {
    assert.strictEqual(sniffJson("q.json", [{ question: "why?" }]), undefined)
    assert.strictEqual(sniffJson("q.json", { questions: 3 }), undefined)
  })
})

describe("refusals name the file and the key", () => {
  it("an end before the start", () => {
    const error = refusal(readJsonl("c.jsonl", JSON.stringify({ video_id: "v", start: 9, end: 3, text: "x" })))
    assert.strictEqual(error.message, "c.jsonl: line 1: end: ends at 3 s, before it starts at 9 s — fix the file")
    assert.match(
      refusal(readDvdCaptions("captions.json", { "9_3": { caption: "x" } }, "d")).message,
      /captions\.json: 9_3: ends at 4 s/
    )
    assert.match(
      refusal(readVideoRag("kv.json", { v: { "0": { content: "x", time: "9-3" } } })).message,
      /kv\.json: v\.0\.time: ends at 3 s, before it starts at 9 s/
    )
  })

  it("a time that is not a finite number", () => {
    const error = refusal(readJsonl("c.jsonl", "{\"video_id\": \"v\", \"start\": 1e999, \"end\": 3, \"text\": \"x\"}"))
    assert.match(error.message, /^c\.jsonl: line 1: start: expected a finite number of seconds ≥ 0, found null/)
    const dvd = refusal(
      readDvdDatabase("db.json", { data: [{ time_start_secs: "0", time_end_secs: 1, caption: "x" }] }, "d")
    )
    assert.match(dvd.message, /^db\.json: data\[0\]\.time_start_secs: expected a finite number/)
  })

  it("empty caption text", () => {
    assert.match(refusal(readLlovi("l.json", { u: ["ok", "  "] })).message, /^l\.json: u\[1\]: empty caption text/)
    assert.match(refusal(readVideoAgent("a_cap.json", { "0": "" })).message, /^a_cap\.json: 0: empty caption text/)
  })

  it("a key that is not a time", () => {
    assert.match(
      refusal(readLlovi("l.json", { u: { abc: "x" } })).message,
      /^l\.json: u\.abc: expected a number of seconds/
    )
  })
})

describe("grouping by time", () => {
  const captions = Array.from({ length: 45 }, (_, i) => ({ start: i, end: i + 1, text: i < 30 ? "cut" : "wash" }))

  it("puts captions in events on the --event-seconds grid and events in scenes on the --scene-seconds grid", () => {
    const scenes = groupCaptions(captions, 10, 20)
    assert.deepStrictEqual(
      scenes.map((s) => [s.start, s.end, s.events.map((e) => [e.start, e.end, e.captions.length])]),
      [
        [0, 20, [[0, 10, 10], [10, 20, 10]]],
        [20, 40, [[20, 30, 10], [30, 40, 10]]],
        [40, 45, [[40, 45, 5]]]
      ]
    )
  })

  it("makes no node for an empty stretch, and a parent always spans its children", () => {
    const scenes = groupCaptions([{ start: 0, end: 4, text: "a" }, { start: 100, end: 130, text: "b" }], 20, 60)
    assert.deepStrictEqual(scenes.map((s) => [s.start, s.end, s.events.length]), [[0, 4, 1], [100, 130, 1]])
  })

  it("writes a repeated caption once over its whole span", () => {
    assert.strictEqual(captionLines(captions.slice(28, 32)), "[28–30 s] cut\n[30–32 s] wash")
  })
})
