import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { videoIdFromFile } from "../../../src/domain/NameId.js"
import { userFileCaps } from "../../../src/domain/UserFile.js"
import type { BenchmarkInput } from "../../../src/programs/benchmarks/Benchmark.js"
import { decodeBenchmark } from "../../../src/programs/benchmarks/BenchmarkQuestions.js"
import {
  durationBandOf,
  loadQuestionFile,
  missingVideosMessage,
  selectVideos,
  subtitleCandidates,
  videoMetadata
} from "../../../src/programs/builder/QuestionVideos.js"
import { scopedTempDir } from "../../support/TempDir.js"

const jsonFile = (file: string, value: unknown): BenchmarkInput => ({
  _tag: "File",
  file: { file, content: { _tag: "Json", value } }
})

const questionsOf = (input: BenchmarkInput) => Either.getOrThrow(decodeBenchmark(input)).questions

// Shaped as lvb_val.json ships its rows.
const lvbRow = (id: string, video: string, extra: Record<string, unknown>) => ({
  id,
  video_path: `${video}.mp4`,
  subtitle_path: `${video}_en.json`,
  duration: 47.2,
  duration_group: 60,
  starting_timestamp_for_subtitles: 12.5,
  question: "What is on the table?",
  candidates: ["a cup", "a book", "a phone", "a key"],
  correct_choice: 1,
  question_category: "S2E",
  topic_category: "NP-News-Programs",
  level: "L1-Perception",
  ...extra
})

const videoMmeRow = (questionId: string, videoId: string, duration: string, domain: string) => ({
  video_id: "001",
  duration,
  domain,
  sub_category: "Humanity & History",
  url: `https://www.youtube.com/watch?v=${videoId}`,
  videoID: videoId,
  question_id: questionId,
  task_type: "Counting Problem",
  question: "How many?",
  options: ["A. 1", "B. 2", "C. 3", "D. 4"],
  answer: "B"
})

describe("what a question file says about each video", () => {
  it("LongVideoBench: topic as domain, the band from the seconds, the subtitle file and its offset; first row per video wins", () => {
    const questions = questionsOf(jsonFile("lvb_val.json", [
      lvbRow("q1", "86CxyhFV9MI", {}),
      lvbRow("q2", "86CxyhFV9MI", { topic_category: "other", starting_timestamp_for_subtitles: 99 }),
      lvbRow("q3", "zzz", { duration: 1900, subtitle_path: "", topic_category: null })
    ]))
    assert.deepStrictEqual(videoMetadata(questions), [
      {
        videoId: "86CxyhFV9MI",
        domain: "NP-News-Programs",
        durationCategory: "short",
        subtitles: { path: "86CxyhFV9MI_en.json", offset: 12.5 }
      },
      { videoId: "zzz", durationCategory: "long" }
    ])
  })

  it("Video-MME: its own band and domain, no subtitle file", () => {
    const questions = questionsOf(jsonFile("test.json", [
      videoMmeRow("001-1", "fFjv93ACGo8", "medium", "Knowledge"),
      videoMmeRow("001-2", "fFjv93ACGo8", "medium", "Knowledge")
    ]))
    assert.deepStrictEqual(videoMetadata(questions), [{
      videoId: "fFjv93ACGo8",
      domain: "Knowledge",
      durationCategory: "medium"
    }])
  })

  it("duration band: the benchmark's own, else seconds, else LongVideoBench's group, else none", () => {
    const [q] = questionsOf(jsonFile("lvb_val.json", [lvbRow("q1", "v", {})]))
    const band = (durationSeconds: number | null, durationGroup: string | null) =>
      durationBandOf({ ...q!, durationSeconds, durationGroup })
    assert.deepStrictEqual(
      [
        band(null, "long"),
        band(180, "15"),
        band(45, null),
        band(null, "3600"),
        band(null, "600"),
        band(null, "15"),
        band(null, null),
        band(null, "x")
      ],
      ["long", "medium", "short", "long", "medium", "short", undefined, undefined]
    )
  })
})

describe("matching the given videos to the file's", () => {
  const metadata = [{ videoId: "b" }, { videoId: "a" }, { videoId: "gone" }, { videoId: "also gone" }]
  const videos = [{ videoId: "a", path: "v/a.mp4" }, { videoId: "b", path: "v/b.mkv" }, {
    videoId: "c",
    path: "v/c.mp4"
  }]

  it("builds the named ones in the order given, skips the others, lists the missing in the file's order", () => {
    const selection = selectVideos(videos, metadata)
    assert.deepStrictEqual(selection.selected.map((s) => [s.video.path, s.metadata.videoId]), [["v/a.mp4", "a"], [
      "v/b.mkv",
      "b"
    ]])
    assert.deepStrictEqual(selection.skipped.map((v) => v.path), ["v/c.mp4"])
    assert.deepStrictEqual(selection.missing, ["gone", "also gone"])
  })

  it("a question's video id goes through the file-name id rule", () => {
    // The file "my clip.mp4" has the id idFromName("my clip"), which is what "my clip" in the file must match.
    const fileId = videoIdFromFile("videos/my clip.mp4")
    assert.isTrue("id" in fileId && fileId.id !== "my clip")
    const selection = selectVideos([{ videoId: "id" in fileId ? fileId.id : "" }], [{ videoId: "my clip" }])
    assert.deepStrictEqual([selection.selected.length, selection.missing], [1, []])
    const own = selectVideos([{ videoId: "clip" }], [{ videoId: "clip" }])
    assert.deepStrictEqual(own.missing, [])
  })

  it("the refusal is one line: how many are missing, the first few, the fix", () => {
    const line = missingVideosMessage("lvb_val.json", ["v1", "v2", "v3", "v4", "v5", "v6", "v7"])
    assert.notInclude(line, "\n")
    assert.match(
      line,
      /^--questions lvb_val\.json: 7 videos it names have no video file among those given: "v1", "v2", "v3", "v4", "v5", and 2 more — add their files/
    )
    assert.match(
      missingVideosMessage("f.json", ["x"]),
      /: 1 video it names has no video file among those given: "x" — /
    )
  })
})

describe("where a subtitle_path is looked for", () => {
  const candidates = (named: string, subtitlesDir: string | undefined) =>
    Effect.map(Path.Path, (path) => subtitleCandidates(path, named, { subtitlesDir, questionsDir: "/data/lvb" }))

  it.effect("under --subtitles-dir, then beside the question file and in its subtitles/ folder", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* candidates("v_en.json", "/subs"),
        Either.right(["/subs/v_en.json", "/data/lvb/v_en.json", "/data/lvb/subtitles/v_en.json"])
      )
      assert.deepStrictEqual(
        yield* candidates("v_en.json", undefined),
        Either.right(["/data/lvb/v_en.json", "/data/lvb/subtitles/v_en.json"])
      )
    }).pipe(Effect.provide(NodePath.layer)))

  it.effect("a path that leaves the folder is refused", () =>
    Effect.gen(function*() {
      for (const named of ["/etc/passwd", "../secret.json", "a/../../b.json"]) {
        const result = yield* candidates(named, "/subs")
        assert.isTrue(Either.isLeft(result), named)
      }
    }).pipe(Effect.provide(NodePath.layer)))
})

describe("reading the question file", () => {
  const mlvuRow = (video: string, type: string) => ({
    video: `${video}.mp4`,
    duration: 200.5,
    question: "Q?",
    candidates: ["a", "b"],
    answer: "a",
    question_type: type
  })

  it.scoped("read as infer reads it: under the questions cap, UTF-8 only, a repeated key refused", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* scopedTempDir("questions")
      const big = path.join(dir, "big.json")
      yield* fs.writeFileString(big, "")
      yield* fs.truncate(big, userFileCaps.questions + 1) // sparse: nothing is written
      const tooLarge = yield* Effect.flip(loadQuestionFile(big, undefined))
      assert.include(tooLarge.message, "is larger than 256 MiB")
      const latin1 = path.join(dir, "latin1.json")
      yield* fs.writeFile(latin1, Buffer.from([0x5b, 0x22, 0xe9, 0x22, 0x5d]))
      assert.include((yield* Effect.flip(loadQuestionFile(latin1, undefined))).message, "is not valid UTF-8")
      const twice = path.join(dir, "twice.json")
      yield* fs.writeFileString(
        twice,
        `[${JSON.stringify(mlvuRow("m", "plotQA")).replace("{", "{\"answer\": \"b\", ")}]`
      )
      assert.include(
        (yield* Effect.flip(loadQuestionFile(twice, undefined))).message,
        `${twice}: index 0: answer: is written twice in one object`
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a folder of .json files (MLVU dev), a file, --benchmark; a bad one in one line", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* scopedTempDir("questions")
      const dev = path.join(dir, "json")
      yield* fs.makeDirectory(dev)
      yield* fs.writeFileString(path.join(dev, "1_plotQA.json"), JSON.stringify([mlvuRow("movie1", "plotQA")]))
      yield* fs.writeFileString(path.join(dev, "2_needle.json"), JSON.stringify([mlvuRow("movie2", "needle")]))
      yield* fs.writeFileString(path.join(dev, "notes.txt"), "not read")
      const folder = yield* loadQuestionFile(dev, undefined)
      assert.strictEqual(folder.benchmark.name, "mlvu")
      assert.deepStrictEqual(videoMetadata(folder.questions), [
        { videoId: "movie1", durationCategory: "medium" },
        { videoId: "movie2", durationCategory: "medium" }
      ])

      const lvb = path.join(dir, "lvb_val.json")
      yield* fs.writeFileString(lvb, JSON.stringify([lvbRow("q1", "v1", {})]))
      assert.strictEqual((yield* loadQuestionFile(lvb, "longvideobench")).questions.length, 1)

      const refusals = [
        yield* Effect.flip(loadQuestionFile(lvb, "videomme")),
        yield* Effect.flip(loadQuestionFile(path.join(dir, "absent.json"), undefined)),
        yield* Effect.flip(loadQuestionFile(path.join(dir, "json", "notes.txt"), undefined))
      ]
      for (const error of refusals) {
        assert.strictEqual(error.reason, "BadInput")
        assert.notInclude(error.message, "\n")
      }
      assert.match(refusals[1]!.message, /absent\.json: not found — check the path$/)
      assert.include(refusals[0]!.message, "lvb_val.json")
      assert.include(refusals[2]!.message, "notes.txt")
    }).pipe(Effect.provide(NodeContext.layer)))
})
