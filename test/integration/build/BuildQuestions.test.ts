// `vtree build --questions FILE` run in-process with the real ffmpeg and the OpenAI-compatible simulator:
// a LongVideoBench-shaped question file picks two of three synthetic videos, gives each its domain and
// duration band, and names its JSON subtitles (one file in each entry shape, each with an offset that the
// tree's subtitles must be shifted back by). A video the file needs and nobody gave, and a subtitle file
// that does not parse, stop the command with one line and no tree.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { oneLine, simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel, policyScripts } from "../../support/harness/Policy.js"
import { makeSyntheticVideo } from "../../support/media/SyntheticVideo.js"
import { answerBuildCalls } from "../../support/openai-sim/builder.js"
import * as OpenAiSim from "../../support/openai-sim/index.js"

let work: ReturnType<typeof tempDir>
let sim: OpenAiSim.OpenAiSim
let videos: string
let questionsFile: string
let subtitlesDir: string

// As lvb_val.json ships its rows.
const row = (id: string, video: string, extra: Record<string, unknown>) => ({
  id,
  video_path: `${video}.mp4`,
  question: "What colour fills the screen first?",
  candidates: ["red", "blue", "green", "white"],
  correct_choice: 0,
  question_category: "S2E",
  level: "L1-Perception",
  ...extra
})

beforeAll(async () => {
  work = tempDir()
  videos = join(work.dir, "videos")
  mkdirSync(videos)
  for (const name of ["alpha", "beta", "other"]) {
    const made = await makeSyntheticVideo({
      dir: videos,
      name,
      segmentSeconds: [6, 6],
      width: 160,
      height: 90,
      subtitleStream: false,
      cues: []
    })
    rmSync(made.srt)
  }
  subtitlesDir = join(work.dir, "subtitles")
  mkdirSync(subtitlesDir)
  // `{"timestamp": [start, end], "text"}` on the source's clock, the clip starting at 100 s; a null end runs to the end of the video.
  writeFileSync(
    join(subtitlesDir, "alpha_en.json"),
    JSON.stringify([
      { timestamp: [90, 95], text: "before the clip" },
      { timestamp: [101, 104], text: "alpha opens" },
      { timestamp: [108, null], text: "alpha closes" }
    ])
  )
  // `{"start": "HH:MM:SS.mmm", "end", "line"}`, the clip starting at 30 s.
  writeFileSync(
    join(subtitlesDir, "beta.json"),
    JSON.stringify([
      { start: "00:00:32.000", end: "00:00:35.500", line: "beta speaks" }
    ])
  )
  questionsFile = join(work.dir, "lvb_val.json")
  writeFileSync(
    questionsFile,
    JSON.stringify([
      row("alpha_0", "alpha", {
        subtitle_path: "alpha_en.json",
        starting_timestamp_for_subtitles: 100,
        duration: 12,
        duration_group: 15,
        topic_category: "NP-News-Programs"
      }),
      // No seconds: the band comes from duration_group (600 s → medium), whatever the video's length.
      row("beta_0", "beta", {
        subtitle_path: "beta.json",
        starting_timestamp_for_subtitles: 30,
        duration_group: 600,
        topic_category: "KE-Knowledge"
      }),
      row("beta_1", "beta", {
        subtitle_path: "beta.json",
        starting_timestamp_for_subtitles: 30,
        duration_group: 600,
        topic_category: "KE-Knowledge"
      })
    ])
  )
  sim = await OpenAiSim.start({ chat: policyScripts({ questions: [] }), intercept: answerBuildCalls })
}, 120_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

type Tree = {
  domain: string
  duration_category: string
  build: { subtitles: { source: string; cues: number } }
  nodes: Record<string, { level: number; time_range: [number, number]; subtitle: string }>
}
const readTree = (out: string, id: string) => JSON.parse(readFileSync(join(out, id, "tree.json"), "utf8")) as Tree

describe("vtree build --questions (live ffmpeg, openai-sim)", () => {
  it("builds only the videos the file names, with its domain, band and shifted JSON subtitles", async () => {
    const out = join(work.dir, "trees")
    const result = await runCli([
      "build",
      videos,
      "--out",
      out,
      "--questions",
      questionsFile,
      "--subtitles-dir",
      subtitlesDir
    ], simEnv(sim.url))
    assert.strictEqual(result.code, 0, result.stderr)
    assert.match(result.stderr, /skipping 1 video that .*lvb_val\.json does not name \(other\)/)
    assert.deepStrictEqual(readdirSync(out).sort(), ["alpha", "beta"])

    const alpha = readTree(out, "alpha")
    assert.deepStrictEqual([alpha.domain, alpha.duration_category], ["NP-News-Programs", "short"])
    assert.deepStrictEqual(alpha.build.subtitles, { source: "dir:alpha_en.json", cues: 2 })
    const frameAt = (tree: Tree, time: number) =>
      Object.values(tree.nodes).find((n) => n.level === 3 && n.time_range[0] === time)!
    // 101–104 s on the source's clock is 1–4 s in the clip; the open end (108 s → 8 s) runs to the clip's end.
    assert.strictEqual(frameAt(alpha, 2).subtitle, "alpha opens")
    assert.strictEqual(frameAt(alpha, 6).subtitle, "")
    assert.strictEqual(frameAt(alpha, 10).subtitle, "alpha closes")
    assert.isFalse(JSON.stringify(alpha.nodes).includes("before the clip"))

    const beta = readTree(out, "beta")
    assert.deepStrictEqual([beta.domain, beta.duration_category], ["KE-Knowledge", "medium"])
    assert.deepStrictEqual(beta.build.subtitles, { source: "dir:beta.json", cues: 1 })
    // 32–35.5 s is 2–5.5 s in the clip.
    assert.strictEqual(frameAt(beta, 0).subtitle, "")
    assert.strictEqual(frameAt(beta, 4).subtitle, "beta speaks")
    assert.strictEqual(frameAt(beta, 8).subtitle, "")
    for (const tree of [alpha, beta]) {
      assert.strictEqual(Object.values(tree.nodes).filter((n) => n.level === 1).length, 1)
    }
  }, 180_000)

  it("refuses, before building anything, when a video the file needs was not given", async () => {
    const out = join(work.dir, "missing")
    const result = await runCli([
      "build",
      join(videos, "alpha.mp4"),
      join(videos, "other.mp4"),
      "--out",
      out,
      "--questions",
      questionsFile
    ], simEnv(sim.url))
    assert.strictEqual(result.code, 1, result.stdout)
    assert.match(
      oneLine(result.stderr),
      /^vtree: --questions .*lvb_val\.json: 1 video it names has no video file among those given: "beta" — add their files/
    )
    assert.isFalse(existsSync(out))
  }, 60_000)

  it("a subtitle file that does not parse stops the command with one line naming the file and the entry", async () => {
    const broken = join(work.dir, "broken-subs")
    mkdirSync(broken)
    writeFileSync(
      join(broken, "alpha_en.json"),
      JSON.stringify([{ timestamp: [101, 104], text: "fine" }, { timestamp: "soon", text: "x" }])
    )
    writeFileSync(join(broken, "beta.json"), "[]")
    const out = join(work.dir, "broken-out")
    const given = [join(videos, "alpha.mp4"), join(videos, "beta.mp4")]
    const result = await runCli([
      "build",
      ...given,
      "--out",
      out,
      "--questions",
      questionsFile,
      "--subtitles-dir",
      broken
    ], simEnv(sim.url))
    assert.strictEqual(result.code, 1, result.stdout)
    assert.match(
      oneLine(result.stderr),
      /broken-subs\/alpha_en\.json: index 1: timestamp: expected \[start, end\] in seconds/
    )
    assert.isFalse(existsSync(join(out, "alpha", "tree.json")))
  }, 60_000)

  it(
    "a videoID that is not an id (\"my clip\"): built under its id, and infer on the same file finds that tree",
    async () => {
      const dir = join(work.dir, "unclean")
      const clips = join(dir, "videos")
      mkdirSync(clips, { recursive: true })
      const made = await makeSyntheticVideo({
        dir: clips,
        name: "my clip",
        segmentSeconds: [6],
        width: 160,
        height: 90,
        subtitleStream: false,
        cues: []
      })
      rmSync(made.srt)
      const file = join(dir, "lvb_val.json")
      writeFileSync(
        file,
        JSON.stringify([row("clip_0", "my clip", { duration_group: 15, topic_category: "NP-News-Programs" })])
      )
      const out = join(dir, "trees")
      const built = await runCli(["build", clips, "--out", out, "--questions", file], simEnv(sim.url))
      assert.strictEqual(built.code, 0, built.stderr)
      const [folder] = readdirSync(out)
      assert.match(folder!, /^my-clip~[0-9a-f]{8}$/)

      // The agent submits A (the key) at once; the question's videoID stays "my clip".
      const agent = await OpenAiSim.start({
        chat: {
          [agentModel]: () => ({
            content: JSON.stringify({ reflect: {}, plan: {}, action: { tool: "submit_answer", args: { answer: "A" } } })
          })
        }
      })
      try {
        const db = join(dir, "runs.db")
        const env = simEnv(agent.url, { VTREE_OCR: "off" })
        const infer = await runCli([
          "infer",
          "--trees",
          out,
          "--questions",
          file,
          "--db",
          db,
          "--run-id",
          "r1",
          "--max-steps",
          "2"
        ], env)
        assert.strictEqual(infer.code, 0, infer.stderr)
        const report = await runCli(["report", "--db", db, "--format", "json"], env)
        assert.strictEqual(report.code, 0, report.stderr)
        assert.strictEqual(
          (JSON.parse(report.stdout) as { overall: { correct: number; total: number } }).overall.correct,
          1
        )
      } finally {
        await agent.close()
      }
    },
    180_000
  )
})
