// Speakers kept, with the real ffmpeg and openai-sim: a diarizing speech endpoint's labels and a WebVTT
// sidecar's voice tags reach the tree's subtitles (`[S1] …`, `[Name] …`) and the event and scene calls.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { makeSyntheticVideo, type SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import { answerBuildCalls } from "../../support/openai-sim/builder.js"
import * as OpenAiSim from "../../support/openai-sim/index.js"

let work: ReturnType<typeof tempDir>
let talk: SyntheticVideo
let voiced: SyntheticVideo
let sim: OpenAiSim.OpenAiSim

beforeAll(async () => {
  work = tempDir()
  // Neither has a subtitle stream; talk has no sidecar either, so only speech to text applies to it.
  const made = { segmentSeconds: [10, 10], width: 160, height: 90, fps: 10, subtitleStream: false } as const
  talk = await makeSyntheticVideo({ ...made, dir: work.dir, name: "talk" })
  voiced = await makeSyntheticVideo({ ...made, dir: work.dir, name: "voiced" })
  rmSync(talk.srt)
  rmSync(voiced.srt)
  writeFileSync(
    join(work.dir, "voiced.vtt"),
    [
      "WEBVTT",
      "",
      "00:00:01.000 --> 00:00:03.000",
      "<v Roger Bingham>We are in New York City",
      "",
      "00:00:12.000 --> 00:00:14.000",
      "<v.loud Esme>Hello</v> <v Mary>Hi there</v>",
      ""
    ].join("\n")
  )
  sim = await OpenAiSim.start({
    intercept: answerBuildCalls,
    transcriptions: {
      // One 20 s chunk; the server's own labels, as gpt-4o-transcribe-diarize or a whisperX server sends them.
      "asr-sim": [{
        segments: [
          { start: 1, end: 4, text: " Welcome to the show.", speaker: "A" },
          { start: 5, end: 8, text: " Thanks for having me.", speaker: "B" },
          { start: 12, end: 15, text: " Let us begin.", speaker: "A" }
        ]
      }]
    }
  })
}, 120_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

interface Tree {
  readonly build: { readonly subtitles: { readonly source: string } }
  readonly nodes: Record<string, { readonly level: number; readonly subtitle: string }>
}

const userTexts = (kind: "Event" | "Scene") =>
  sim.requests.flatMap((request) => {
    const messages = request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }> | undefined
    const user = messages?.find((m) => m.role === "user")?.content
    const text = typeof user === "string"
      ? user
      : Array.isArray(user)
      ? user.map((part: { text?: string }) => part.text ?? "").join("\n")
      : ""
    return text.startsWith(`${kind} `) ? [text] : []
  })

const build = async (video: SyntheticVideo, env: Record<string, string> = {}) => {
  const out = join(work.dir, "trees")
  const built = await runCli(["build", video.video, "--out", out, "--frame-interval", "1", "--event-seconds", "4"], {
    ...simEnv(sim.url),
    ...env
  })
  assert.strictEqual(built.code, 0, built.stderr)
  const name = video.video.endsWith("talk.mp4") ? "talk" : "voiced"
  return JSON.parse(readFileSync(join(out, name, "tree.json"), "utf8")) as Tree
}

describe("speakers kept (live ffmpeg, openai-sim)", () => {
  it("a diarized transcription labels each line with its speaker, in the tree and in the calls", async () => {
    sim.reset()
    const tree = await build(talk, { VTREE_ASR_BASE_URL: sim.url, VTREE_ASR_MODEL: "asr-sim" })
    assert.strictEqual(tree.build.subtitles.source, "asr")
    const scene = Object.values(tree.nodes).find((node) => node.level === 1)!
    assert.strictEqual(scene.subtitle, "[S1] Welcome to the show. [S2] Thanks for having me. [S1] Let us begin.")
    const events = userTexts("Event").join("\n")
    assert.include(events, "[S1] Welcome to the show.")
    assert.include(events, "[S2] Thanks for having me.")
    assert.include(userTexts("Scene").join("\n"), "[S2] Thanks for having me.")
  }, 180_000)

  it("a WebVTT sidecar's voice tags keep their names, in the tree and in the calls", async () => {
    sim.reset()
    const tree = await build(voiced)
    assert.strictEqual(tree.build.subtitles.source, "sidecar:voiced.vtt")
    const subtitles = Object.values(tree.nodes).filter((node) => node.level === 1).map((node) => node.subtitle).join(
      " "
    )
    assert.include(subtitles, "[Roger Bingham] We are in New York City")
    assert.include(subtitles, "[Esme] Hello [Mary] Hi there")
    assert.include(userTexts("Event").join("\n"), "[Roger Bingham] We are in New York City")
    assert.include(userTexts("Scene").join("\n"), "[Esme] Hello [Mary] Hi there")
  }, 180_000)
})
