// `vtree build` run in-process, with the real ffmpeg, a synthetic video made here, and the
// OpenAI-compatible simulator answering the build calls from their prompt text. Then `vtree tree
// validate`, `vtree infer` and `vtree report` on the tree it wrote; and every bad input refused with one
// line, exit 1 and no tree. kill -9 and Ctrl-C are the built CLI's: test/e2e/build/BuildSignals.test.ts.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { buildCalls, buildSim, question, registryCalls, synthVideo } from "../../support/build/SynthBuild.js"
import { runCli } from "../../support/cli/InProcess.js"
import type { tempDir } from "../../support/harness/Cli.js"
import { oneLine, simEnv } from "../../support/harness/Cli.js"
import { corruptPackets, makeAudioOnly, type SyntheticVideo, truncateCopy } from "../../support/media/SyntheticVideo.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"

let work: ReturnType<typeof tempDir>
let video: SyntheticVideo
let sim: OpenAiSim.OpenAiSim

beforeAll(async () => {
  const made = await synthVideo()
  work = made.work
  video = made.video
  sim = await buildSim()
}, 120_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

describe("vtree build (live ffmpeg, openai-sim)", () => {
  it("dry run: the plan and its cost, nothing called or written", async () => {
    const out = join(work.dir, "dry")
    const before = sim.requests.length
    const result = await runCli(["build", video.video, "--out", out, "--dry-run"], simEnv(sim.url))
    assert.strictEqual(result.code, 0, result.stderr)
    // Two llm calls: the scene's and the entity registry's.
    assert.match(result.stdout, /^synth\s+1\.5 min\s+45\s+5\s+1\s+5\s+2\s+0\s+45\s.*\ssidecar$/m)
    assert.include(result.stdout, "dry run: nothing was called or written")
    assert.isFalse(existsSync(out))
    assert.strictEqual(sim.requests.length, before)
  }, 60_000)

  it("builds a tree that validates, that infer answers on and report shows; a rerun calls nothing", async () => {
    const out = join(work.dir, "trees")
    // Scenes grouped from the cards, as this test was written for (the default cuts: SceneCuts.test.ts).
    const args = ["build", video.video, "--out", out, "--domain", "Synthetic", "--scenes", "fixed"]
    const built = await runCli(args, simEnv(sim.url))
    assert.strictEqual(built.code, 0, built.stderr)
    // llm calls: the scene's and the entity registry's.
    assert.match(built.stdout, /^synth\s+1\.5 min\s+45\s+\d+\s+1\s+\d+\s+2\s+0\s.*\ssidecar$/m)
    const tree = JSON.parse(readFileSync(join(out, "synth", "tree.json"), "utf8")) as {
      domain: string
      build: { subtitles: { source: string; cues: number }; frames: { sampled: number; sent: number } }
      nodes: Record<string, { level: number; time_range: [number, number]; subtitle: string }>
    }
    assert.strictEqual(tree.domain, "Synthetic")
    assert.deepStrictEqual(tree.build.subtitles, { source: "sidecar:synth.srt", cues: 3 })
    assert.deepStrictEqual(tree.build.frames, { sampled: 45, sent: 45 })
    // A clean video: the decoder said nothing, so no span is reported.
    assert.notProperty(tree.build, "damaged")
    const nodes = Object.entries(tree.nodes)
    const frames = nodes.filter(([, n]) => n.level === 3)
    assert.strictEqual(frames.length, 45)
    assert.deepStrictEqual(frames.map(([, n]) => n.time_range[0]).slice(0, 4), [0, 2, 4, 6])
    // Events snapped to the detected cuts (21, 40 and 62 s lie within reach of a 20 s target).
    const edges = nodes.filter(([, n]) => n.level === 2).map(([, n]) => n.time_range[0])
    // (ffmpeg scores every other frame, so a detected cut may land one frame, 0.04 s, late.)
    for (const cut of [0, 21, 40, 62]) {
      assert.isTrue(edges.some((edge) => edge >= cut && edge <= cut + 0.05), `${cut} in ${edges}`)
    }
    // Subtitles by overlap: the first event (0–21 s) holds two lines, the third (40–62 s) the last one.
    assert.strictEqual(tree.nodes["synth_L1_000_L2_000"]!.subtitle, "The red room is empty. A test pattern appears.")
    assert.strictEqual(tree.nodes["synth_L1_000_L2_002"]!.subtitle, "Colour bars fill the screen.")
    assert.strictEqual(tree.nodes["synth_L1_000_L2_000_L3_001"]!.subtitle, "The red room is empty.")
    assert.strictEqual(buildCalls(sim), nodes.filter(([, n]) => n.level < 3).length)
    assert.strictEqual(registryCalls(sim), 1)

    const validated = await runCli(["tree", "validate", join(out, "synth")], {})
    assert.strictEqual(validated.code, 0, validated.stderr)
    assert.include(validated.stdout, "frames: 45 found, 0 missing")

    const questions = join(work.dir, "questions")
    mkdirSync(questions, { recursive: true })
    writeFileSync(
      join(questions, "synth.json"),
      JSON.stringify([{
        question_id: question.questionId,
        task_type: question.taskType,
        question: question.question,
        options: ["A. red", "B. blue", "C. green", "D. white"],
        answer: question.answer
      }])
    )
    const db = join(work.dir, "runs.db")
    const inferred = await runCli(["infer", "--trees", out, "--questions", questions, "--db", db], simEnv(sim.url))
    assert.strictEqual(inferred.code, 0, inferred.stderr)
    assert.match(inferred.stdout, /completed/)
    const report = await runCli(["report", "--db", db], {})
    assert.strictEqual(report.code, 0, report.stderr)
    assert.match(report.stdout, /accuracy/i)

    const before = buildCalls(sim)
    const again = await runCli(args, simEnv(sim.url))
    assert.strictEqual(again.code, 0, again.stderr)
    assert.strictEqual(buildCalls(sim), before)
    assert.strictEqual(registryCalls(sim), 1)
    assert.strictEqual(readFileSync(join(out, "synth", "tree.json"), "utf8"), JSON.stringify(tree, null, 1) + "\n")
  }, 180_000)

  it("a clip whose timestamps start late is planned, built and classed by its length", async () => {
    const dir = join(work.dir, "late-clip")
    mkdirSync(dir, { recursive: true })
    const late = join(dir, "late.mkv")
    // Timestamps from 10 hours on: measured by its end timestamp this was "600.3 min", long, 1,801 calls.
    execFileSync("ffmpeg", [
      "-hide_banner",
      "-loglevel",
      "error",
      "-i",
      video.video,
      "-map",
      "0:v",
      "-c",
      "copy",
      "-output_ts_offset",
      "36000",
      late
    ])
    const out = join(work.dir, "late-trees")
    const dry = await runCli(["build", late, "--out", out, "--dry-run"], simEnv(sim.url))
    assert.strictEqual(dry.code, 0, dry.stderr)
    assert.match(dry.stdout, /^late\s+1\.5 min\s+45\s+5\s+1\s+5\s+2\s+0\s+45\s/m)
    const built = await runCli(["build", late, "--out", out], simEnv(sim.url))
    assert.strictEqual(built.code, 0, built.stderr)
    const tree = JSON.parse(readFileSync(join(out, "late", "tree.json"), "utf8")) as {
      duration_seconds: number
      duration_category: string
      nodes: Record<string, { level: number; time_range: [number, number] }>
    }
    assert.approximately(tree.duration_seconds, 90, 0.1)
    assert.strictEqual(tree.duration_category, "short")
    const frames = Object.values(tree.nodes).filter((n) => n.level === 3).map((n) => n.time_range[0])
    assert.deepStrictEqual([frames.length, frames[0], frames.at(-1)], [45, 0, 88])
  }, 120_000)

  it("a video damaged mid-file builds, and the summary names the span without a picture", async () => {
    const dir = join(work.dir, "damaged")
    mkdirSync(dir, { recursive: true })
    const damaged = join(dir, "damaged.mp4")
    // The index is at the front (faststart): zeroing a stretch of the media data leaves the file opening
    // and decoding, with the frames of that stretch lost.
    const bytes = readFileSync(video.video)
    bytes.fill(0, Math.floor(bytes.length * 0.4), Math.floor(bytes.length * 0.55))
    writeFileSync(damaged, bytes)
    const out = join(work.dir, "damaged-trees")
    const built = await runCli(["build", damaged, "--out", out], simEnv(sim.url))
    assert.strictEqual(built.code, 0, built.stderr)
    const gap = /^damaged: no picture from (\d+\.\d) s to (\d+\.\d) s \(the decoder reported damaged data\)/m.exec(
      built.stdout
    )
    assert.isNotNull(gap, built.stdout)
    const [from, to] = [Number(gap![1]), Number(gap![2])]
    assert.isTrue(from > 10 && to < 80 && to - from >= 4, `${from}–${to}`)
    const tree = JSON.parse(readFileSync(join(out, "damaged", "tree.json"), "utf8")) as {
      build: { damaged?: ReadonlyArray<{ start: number; end: number; picture: string; decoder: string }> }
    }
    assert.deepStrictEqual(
      tree.build.damaged?.map(({ end, picture, start }) => ({ start, end, picture })),
      [{ start: from, end: to, picture: "missing" }]
    )
    // What ffmpeg said there, as the summary quotes it.
    assert.match(tree.build.damaged![0]!.decoder, /invalid nal unit|error while decoding|invalid data/i)
    assert.include(built.stdout, `ffmpeg said: "${tree.build.damaged![0]!.decoder}"`)
  }, 120_000)

  it("a video whose picture is damaged mid-file, with a frame in every slot, builds and names the span", async () => {
    const dir = join(work.dir, "corrupt")
    mkdirSync(dir, { recursive: true })
    const corrupt = join(dir, "corrupt.mp4")
    const hit = await corruptPackets(video.video, corrupt, 40, 44)
    assert.isAbove(hit.length, 10)
    const out = join(work.dir, "corrupt-trees")
    const built = await runCli(["build", corrupt, "--out", out], simEnv(sim.url))
    assert.strictEqual(built.code, 0, built.stderr)
    const line =
      /^corrupt: damaged picture from (\d+\.\d) s to (\d+\.\d) s \(the decoder reported errors.*ffmpeg said: "([^"]+)"/m
        .exec(built.stdout)
    assert.isNotNull(line, built.stdout)
    const tree = JSON.parse(readFileSync(join(out, "corrupt", "tree.json"), "utf8")) as {
      build: {
        frames: { sampled: number }
        damaged?: ReadonlyArray<{ start: number; end: number; picture: string; decoder: string; messages: number }>
      }
      nodes: Record<string, { level: number; time_range: [number, number] }>
    }
    // Every slot kept its frame: the damage shows only in what ffmpeg said.
    assert.strictEqual(tree.build.frames.sampled, 45)
    const spans = tree.build.damaged ?? []
    assert.isAtLeast(spans.length, 1)
    for (const span of spans) {
      assert.strictEqual(span.picture, "corrupt")
      assert.isAtLeast(span.messages, 1)
      // Said plainly: no pointer, no path, no control character, one short line.
      assert.notMatch(span.decoder, /@ 0x|[\u0000-\u001f]/)
      assert.notInclude(span.decoder, work.dir)
      assert.isAtMost(span.decoder.length, 160)
    }
    // The damaged packets all lie inside a reported span, and the spans stay near them (a slot's slack
    // each side, and the smear that runs on to the next keyframe).
    for (const time of hit) assert.isTrue(spans.some((s) => s.start <= time && time <= s.end), `${time} in spans`)
    assert.isAtLeast(spans[0]!.start, 36)
    assert.isAtMost(spans.at(-1)!.end, 64)
    assert.strictEqual(spans[0]!.start.toFixed(1), line![1])
    assert.strictEqual(spans[0]!.decoder, line![3])
  }, 120_000)

  describe("bad input: one line naming the file, exit 1, no tree", () => {
    const refused = async (args: ReadonlyArray<string>, expected: RegExp, env = simEnv(sim.url)) => {
      const out = join(work.dir, `bad-${Math.random().toString(36).slice(2)}`)
      const result = await runCli(["build", ...args, "--out", out], env)
      assert.strictEqual(result.code, 1, result.stdout)
      assert.match(oneLine(result.stderr), expected)
      assert.isFalse(existsSync(join(out, "synth", "tree.json")))
      assert.isFalse(existsSync(out) && readdirSync(out).some((name) => existsSync(join(out, name, "tree.json"))))
      return result
    }

    it("not a video, audio only, zero length, truncated", async () => {
      const notes = join(work.dir, "notes.mp4")
      writeFileSync(notes, "these are notes, not a video\n")
      await refused([notes], /notes\.mp4: .*/)
      const tone = await makeAudioOnly(work.dir)
      await refused([tone], /tone\.m4a: .*(audio|video stream)/)
      const empty = join(work.dir, "empty.mp4")
      writeFileSync(empty, "")
      await refused([empty], /empty\.mp4: .*/)
      // Cut short with its index up front: the probe reads it, the decode stops early and says where.
      const cut = await truncateCopy(video.video, join(work.dir, "cut.mp4"), 0.5)
      const out = join(work.dir, "cut-out")
      const result = await runCli(["build", cut, "--out", out], simEnv(sim.url))
      assert.strictEqual(result.code, 1, result.stdout)
      assert.match(oneLine(result.stderr), /cut\.mp4: frames decode only up to [\d.]+ s of 90\.0 s/)
      assert.deepStrictEqual(readdirSync(out), [])
    }, 60_000)

    it("a malformed subtitle file, with its line", async () => {
      const dir = join(work.dir, "badsubs")
      mkdirSync(dir, { recursive: true })
      copyFileSync(video.video, join(dir, "synth.mp4"))
      writeFileSync(
        join(dir, "synth.srt"),
        "1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:0x,000 --> 00:00:04,000\ntext\n"
      )
      await refused([join(dir, "synth.mp4")], /synth\.srt:6: .* — fix the line or remove the file$/)
    }, 60_000)

    it("two videos with one id, an output folder that cannot be written, no model configured", async () => {
      const dir = join(work.dir, "twins")
      mkdirSync(dir, { recursive: true })
      copyFileSync(video.video, join(dir, "synth.mp4"))
      copyFileSync(video.video, join(dir, "synth.mkv"))
      await refused([dir], /both map to video id "synth"/)
      const file = join(work.dir, "a-file")
      writeFileSync(file, "")
      const result = await runCli(["build", video.video, "--out", join(file, "trees")], simEnv(sim.url))
      assert.strictEqual(result.code, 1)
      assert.match(
        oneLine(result.stderr),
        /^vtree: --out .*a-file\/trees: cannot write there .* — choose a folder you can write to$/
      )
      await refused([video.video], /no model configured/, {})
    }, 60_000)
  })
})
