// Issue #33: a subtitle file of 20,000 cues all on screen at once turned a 1-minute video into a 33 MB
// tree.json, and sent every cue to every event call. `vtree build` in-process over the real ffmpeg and
// openai-sim, with such a sidecar: what it writes and what it sends are bounded by the subtitle budget.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { subtitleCallChars, subtitleCharBudget } from "../../../src/programs/builder/Subtitles.js"
import { buildCalls, buildSim, registryCalls } from "../../support/build/SynthBuild.js"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { makeSyntheticVideo, type SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"

let work: ReturnType<typeof tempDir>
let video: SyntheticVideo
let sim: OpenAiSim.OpenAiSim

const cueCount = 20_000

beforeAll(async () => {
  work = tempDir()
  video = await makeSyntheticVideo({
    dir: work.dir,
    name: "piled",
    segmentSeconds: [20, 20, 20],
    subtitleStream: false,
    timestamps: false,
    // Each starts somewhere in the minute and stays to its end: at 59 s all 20,000 are on screen.
    cues: Array.from({ length: cueCount }, (_, i) => ({
      start: (i % 600) / 10,
      end: 60,
      text: `overlapping caption number ${i} says something different`
    }))
  })
  sim = await buildSim()
}, 120_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

const userText = (request: OpenAiSim.SimRequest): string => {
  const messages = (request.body["messages"] ?? []) as ReadonlyArray<{ role: string; content: unknown }>
  return messages.filter((m) => m.role === "user").map((m) =>
    typeof m.content === "string"
      ? m.content
      : (m.content as ReadonlyArray<{ type: string; text?: string }>).map((part) => part.text ?? "").join("\n")
  ).join("\n")
}

describe("20,000 overlapping cues on a 1-minute video", () => {
  it("tree.json and every model call stay within the subtitle budget", async () => {
    const srt = readFileSync(video.srt, "utf8")
    assert.isAbove(srt.length, 1_000_000)
    const out = join(work.dir, "trees")
    const before = sim.requests.length
    const built = await runCli(["build", video.video, "--out", out], simEnv(sim.url))
    assert.strictEqual(built.code, 0, built.stderr)
    const file = join(out, "piled", "tree.json")
    const tree = JSON.parse(readFileSync(file, "utf8")) as {
      build: { subtitles: { source: string; cues: number }; parameters: { frame_interval: number } }
      nodes: Record<string, { level: number; time_range: [number, number]; subtitle: string }>
    }
    assert.deepStrictEqual(tree.build.subtitles, { source: "sidecar:piled.srt", cues: cueCount })
    const interval = tree.build.parameters.frame_interval
    const nodes = Object.values(tree.nodes)
    assert.strictEqual(nodes.filter((node) => node.level === 3).length, 30)

    // Each node's subtitle is cut at the budget of the time it covers (a frame: its grid slot); "…" marks the cut.
    const budgetOf = (node: (typeof nodes)[number]) =>
      subtitleCharBudget(node.level === 3 ? interval : node.time_range[1] - node.time_range[0])
    for (const node of nodes) {
      assert.isAtMost(node.subtitle.length, budgetOf(node) + 1)
      assert.isTrue(node.subtitle.endsWith("…"), node.subtitle.slice(-40))
    }
    // The whole file: the tree without its subtitles, plus at most every node's budget in bytes.
    const bare = JSON.stringify(
      {
        ...tree,
        nodes: Object.fromEntries(
          Object.entries(tree.nodes).map(([id, node]) => [id, { ...node, subtitle: "" }])
        )
      },
      null,
      1
    )
    // (The cues are ASCII, so a character is a byte; the "…" is three.)
    const subtitleBytes = nodes.reduce((sum, node) => sum + budgetOf(node) + 3, 0)
    const size = statSync(file).size
    assert.isAtMost(size, Buffer.byteLength(bare) + subtitleBytes + 1)
    // …which for this minute is tens of kilobytes, where it was 33 MB.
    assert.isBelow(size, 150_000)

    // What the models are sent is bounded the same way: an event call carries its cue lines up to
    // subtitleCallChars of its span (then a line counting the rest), a scene call its events' node
    // subtitles; no call spans more than the minute. (It was 950,000 characters an event.)
    const calls = sim.requests.slice(before)
    // Every request was a card call or the entity registry's one call (whose cards hold no raw cues).
    assert.strictEqual(buildCalls(sim) + registryCalls(sim) - before, calls.length)
    assert.strictEqual(registryCalls(sim), 1)
    assert.isAtLeast(calls.length, 4)
    for (const call of calls) {
      const text = userText(call)
      assert.isBelow(text.length, subtitleCallChars(60) + 4_000, text.slice(0, 200))
    }
    assert.isTrue(calls.some((call) => /^\(\d+ more cues in this span not shown\)$/m.test(userText(call))))
  }, 180_000)
})
