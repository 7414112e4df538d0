// A build that says what it did (issue #29 item 5), in-process against the real ffmpeg and openai-sim:
// each video's subtitle source in the dry run and the summary, missing subtitle paths and stills refused
// in one line, a dry run that counts only what the checkpoints lack and prices it, cards that hold only
// their level's fields, `tree validate` failing on missing frames, and the trees-folder hints.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { cardFieldsByLevel } from "../../../src/domain/Tree.js"
import { buildCalls } from "../../support/build/SynthBuild.js"
import { runCli } from "../../support/cli/InProcess.js"
import { oneLine, simEnv, tempDir } from "../../support/harness/Cli.js"
import { answerBuildCalls } from "../../support/openai-sim/builder.js"
import * as OpenAiSim from "../../support/openai-sim/index.js"

const sample = fileURLToPath(new URL("../../../samples/video/vtDemo0001a.mp4", import.meta.url))
const sampleSrt = fileURLToPath(new URL("../../../samples/video/vtDemo0001a.srt", import.meta.url))

let work: ReturnType<typeof tempDir>
let sim: OpenAiSim.OpenAiSim

/** The keys models add to cards for their own bookkeeping. */
const bookkeeping = { index: 7, frame_index: 3, frame_number: "3", time: 1.5, event_id: "e1" }

/** Build replies as the sim writes them, with bookkeeping keys added to every card. */
const chattyReply = (request: OpenAiSim.SimRequest) => {
  const reply = answerBuildCalls(request)
  if (reply === undefined) return undefined
  const value = JSON.parse(reply.content) as Record<string, unknown>
  if (Array.isArray(value["frames"])) {
    const event = value["event"] as Record<string, unknown>
    const frames = value["frames"] as ReadonlyArray<Record<string, unknown>>
    return {
      content: JSON.stringify({
        event: { ...bookkeeping, ...event },
        frames: frames.map((frame, i) => ({ frame_index: i, frame_number: i + 1, ...frame, timestamp: "0:02" }))
      })
    }
  }
  return { content: JSON.stringify({ scene_index: 0, ...value, index: 0 }) }
}

const ffmpeg = (args: ReadonlyArray<string>) =>
  execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args], { stdio: "pipe" })

beforeAll(async () => {
  work = tempDir()
  sim = await OpenAiSim.start({ chat: {}, intercept: chattyReply })
}, 60_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

/** The row of `video` in a printed table, split on runs of spaces. */
const rowOf = (stdout: string, video: string) => {
  const line = stdout.split("\n").find((l) => l.startsWith(`${video} `))
  assert.isDefined(line, `no row for ${video} in\n${stdout}`)
  return line!.trim().split(/\s{2,}/)
}

const column = (stdout: string, video: string, name: string) => {
  const header = stdout.split("\n").find((l) => l.startsWith("video "))!.trim().split(/\s{2,}/)
  const at = header.indexOf(name)
  assert.isAtLeast(at, 0, `no column ${name} in ${header.join(" | ")}`)
  return rowOf(stdout, video)[at]
}

describe("vtree build says what it did (live ffmpeg, openai-sim)", { timeout: 240_000 }, () => {
  it("names each video's subtitles, plans only what the checkpoints lack, prices it, writes only card fields", async () => {
    const videos = join(work.dir, "videos")
    const subs = join(work.dir, "subs")
    mkdirSync(videos, { recursive: true })
    mkdirSync(subs, { recursive: true })
    copyFileSync(sample, join(videos, "side.mp4"))
    copyFileSync(sampleSrt, join(videos, "side.srt"))
    copyFileSync(sample, join(videos, "fromdir.mp4"))
    copyFileSync(sampleSrt, join(subs, "fromdir.srt"))
    copyFileSync(sample, join(videos, "plain.mp4"))
    ffmpeg([
      "-i",
      sample,
      "-i",
      sampleSrt,
      "-map",
      "0",
      "-map",
      "1",
      "-c",
      "copy",
      "-c:s",
      "mov_text",
      join(
        videos,
        "inside.mp4"
      )
    ])
    const out = join(work.dir, "trees")
    const args = ["build", videos, "--out", out, "--subtitles-dir", subs]

    const asrEnv = simEnv(sim.url, { VTREE_ASR_BASE_URL: sim.url, VTREE_ASR_MODEL: "whisper-1" })
    const dry = await runCli([...args, "--dry-run"], asrEnv)
    assert.strictEqual(dry.code, 0, dry.stderr)
    assert.strictEqual(column(dry.stdout, "side", "subtitles"), "sidecar")
    assert.strictEqual(column(dry.stdout, "fromdir", "subtitles"), "dir")
    assert.strictEqual(column(dry.stdout, "inside", "subtitles"), "embedded")
    assert.strictEqual(column(dry.stdout, "plain", "subtitles"), "asr")
    assert.strictEqual(column(dry.stdout, "side", "vlm calls"), "2")
    assert.isFalse(existsSync(out))

    const built = await runCli(args, simEnv(sim.url))
    assert.strictEqual(built.code, 0, built.stderr)
    assert.strictEqual(column(built.stdout, "side", "subtitles"), "sidecar")
    assert.strictEqual(column(built.stdout, "fromdir", "subtitles"), "dir")
    assert.strictEqual(column(built.stdout, "inside", "subtitles"), "embedded")
    assert.strictEqual(column(built.stdout, "plain", "subtitles"), "none")
    const tree = JSON.parse(readFileSync(join(out, "side", "tree.json"), "utf8")) as {
      build: { subtitles: { source: string } }
      nodes: Record<string, { level: 1 | 2 | 3; card: Record<string, unknown> }>
    }
    assert.strictEqual(tree.build.subtitles.source, "sidecar:side.srt")
    for (const [id, node] of Object.entries(tree.nodes)) {
      assert.deepStrictEqual(Object.keys(node.card), [...cardFieldsByLevel[node.level]], id)
    }
    const fromDir = JSON.parse(readFileSync(join(out, "fromdir", "tree.json"), "utf8")) as typeof tree
    assert.strictEqual(fromDir.build.subtitles.source, "dir:fromdir.srt")

    // A rerun would reuse every call: the dry run plans none, and says so.
    const calls = buildCalls(sim)
    const again = await runCli([...args, "--dry-run"], simEnv(sim.url, { VTREE_VLM_PRICE: "1,4" }))
    assert.strictEqual(again.code, 0, again.stderr)
    for (const video of ["side", "fromdir", "inside", "plain"]) {
      assert.strictEqual(column(again.stdout, video, "vlm calls"), "0", again.stdout)
      assert.strictEqual(column(again.stdout, video, "llm calls"), "0", again.stdout)
      // Two events, a scene and the entity registry's call.
      assert.strictEqual(column(again.stdout, video, "reused"), "4", again.stdout)
      assert.strictEqual(column(again.stdout, video, "USD"), "$0.00", again.stdout)
    }
    assert.strictEqual(buildCalls(sim), calls)

    // One event's checkpoint gone: that one vision call is planned, at the prices of a --prices file.
    const checkpoints = join(out, "side", ".vtree", "checkpoints")
    const event = readdirSync(checkpoints).find((name) => name.startsWith("event-"))!
    rmSync(join(checkpoints, event))
    const prices = join(work.dir, "prices.json")
    writeFileSync(prices, JSON.stringify({ vlm: { input: 2, output: 8 }, tool: { input: 1, output: 2 } }))
    const partial = await runCli([...args, "--dry-run", "--prices", prices], simEnv(sim.url))
    assert.strictEqual(partial.code, 0, partial.stderr)
    assert.strictEqual(column(partial.stdout, "side", "vlm calls"), "1")
    assert.strictEqual(column(partial.stdout, "fromdir", "vlm calls"), "0")
    assert.match(column(partial.stdout, "side", "USD")!, /^\$0\.\d{2,4}$/)
    assert.notStrictEqual(column(partial.stdout, "side", "USD"), "$0.00")
    assert.strictEqual(column(partial.stdout, "fromdir", "USD"), "$0.00")
    const rebuilt = await runCli(args, simEnv(sim.url))
    assert.strictEqual(rebuilt.code, 0, rebuilt.stderr)
    assert.strictEqual(buildCalls(sim), calls + 1)

    // A fresh dry run with prices: every call priced; without prices, no USD column.
    const fresh = await runCli(
      ["build", join(videos, "side.mp4"), "--out", join(work.dir, "fresh"), "--dry-run"],
      simEnv(sim.url, { VTREE_VLM_PRICE: "1,0.5,4", VTREE_TOOL_PRICE: "0.5,1" })
    )
    assert.strictEqual(fresh.code, 0, fresh.stderr)
    assert.match(column(fresh.stdout, "side", "USD")!, /^\$0\.\d{2,4}$/)
    assert.notStrictEqual(column(fresh.stdout, "side", "USD"), "$0.00")
    const unpriced = await runCli(
      ["build", join(videos, "side.mp4"), "--out", join(work.dir, "fresh"), "--dry-run"],
      {}
    )
    assert.notInclude(unpriced.stdout.split("\n")[0], "USD")

    // tree validate: a missing frame is a failure unless accepted.
    rmSync(join(out, "side", "frames", readdirSync(join(out, "side", "frames")).sort()[0]!))
    const validated = await runCli(["tree", "validate", join(out, "side")], {})
    assert.strictEqual(validated.code, 1, validated.stdout)
    assert.include(validated.stdout, "frames: 14 found, 1 missing")
    assert.match(oneLine(validated.stderr), /1 frame missing .*--allow-missing-frames/)
    const accepted = await runCli(["tree", "validate", join(out, "side"), "--allow-missing-frames"], {})
    assert.strictEqual(accepted.code, 0, accepted.stderr)
    assert.include(accepted.stdout, "frames: 14 found, 1 missing")

    // A tree folder given as --trees: the hint names its parent.
    const questions = join(work.dir, "questions.jsonl")
    writeFileSync(
      questions,
      JSON.stringify({
        video_id: "side",
        videoID: "side",
        question_id: "side-1",
        duration: "short",
        domain: "Knowledge",
        sub_category: "Other",
        task_type: "Counting Problem",
        question: "How many?",
        options: ["A. 1", "B. 2", "C. 3", "D. 4"],
        answer: "A"
      }) + "\n"
    )
    const inferred = await runCli(
      ["infer", "--trees", join(out, "side"), "--questions", questions, "--db", join(work.dir, "runs.db")],
      simEnv(sim.url)
    )
    assert.strictEqual(inferred.code, 1, inferred.stdout)
    assert.include(oneLine(inferred.stderr), `did you mean --trees ${out}`)
  })

  describe("refused in one line naming the path, exit 1, nothing written", () => {
    const refused = async (args: ReadonlyArray<string>, expected: RegExp) => {
      const out = join(work.dir, `bad-${Math.random().toString(36).slice(2)}`)
      const result = await runCli(["build", ...args, "--out", out], simEnv(sim.url))
      assert.strictEqual(result.code, 1, result.stdout)
      assert.match(oneLine(result.stderr), expected)
      assert.isFalse(existsSync(out))
    }

    it("--subtitles or --subtitles-dir that does not exist", async () => {
      const missing = join(work.dir, "no-such-subs")
      await refused([sample, "--subtitles-dir", missing], /--subtitles-dir .*no-such-subs: no such folder/)
      await refused([sample, "--subtitles", `${missing}.srt`], /--subtitles .*no-such-subs\.srt: no such file/)
      await refused([sample, "--subtitles-dir", sampleSrt], /--subtitles-dir .*vtDemo0001a\.srt: not a folder/)
    })

    it("a still image, and a video under one second", async () => {
      const still = join(work.dir, "still.jpg")
      ffmpeg(["-i", sample, "-frames:v", "1", still])
      await refused([still], /still\.jpg: a still image/)
      const short = join(work.dir, "short.mp4")
      ffmpeg(["-i", sample, "-t", "0.5", "-an", short])
      await refused([short], /short\.mp4: its video lasts 0\.5\d* s — .*at least 1 s/)
    })
  })

  describe("folders of folders", () => {
    it("says the videos are in subfolders; --recursive walks them, not through links, hidden folders or --out", async () => {
      const root = join(work.dir, "season")
      mkdirSync(join(root, "ep1"), { recursive: true })
      mkdirSync(join(root, "ep2", "extra"), { recursive: true })
      mkdirSync(join(root, ".cache"), { recursive: true })
      copyFileSync(sample, join(root, "ep1", "opening.mp4"))
      copyFileSync(sample, join(root, "ep2", "extra", "closing.mkv"))
      copyFileSync(sample, join(root, ".cache", "hidden.mp4"))
      symlinkSync(root, join(root, "ep1", "loop"))
      const flat = await runCli(["build", root, "--out", join(work.dir, "season-trees"), "--dry-run"], {})
      assert.strictEqual(flat.code, 1)
      assert.match(oneLine(flat.stderr), /season: no video files in this folder, 2 in its subfolders — add --recursive/)

      const out = join(root, "trees")
      const walked = await runCli(["build", root, "--recursive", "--out", out, "--dry-run"], {})
      assert.strictEqual(walked.code, 0, walked.stderr)
      assert.deepStrictEqual(
        walked.stdout.split("\n").filter((l) => /^(opening|closing|hidden) /.test(l)).map((l) => l.split(" ")[0]),
        ["opening", "closing"]
      )

      // Ids come from the names: two "opening" files in different folders are refused, as in one folder.
      mkdirSync(join(root, "ep3"))
      copyFileSync(sample, join(root, "ep3", "opening.mp4"))
      const twins = await runCli(["build", root, "--recursive", "--out", out, "--dry-run"], {})
      assert.strictEqual(twins.code, 1)
      assert.match(oneLine(twins.stderr), /both map to video id "opening"/)
    })
  })
})
