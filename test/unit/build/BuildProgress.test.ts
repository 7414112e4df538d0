import { assert, describe, it } from "@effect/vitest"
import { type VideoSummary } from "../../../src/programs/builder/BuildOptions.js"
import {
  applyBuildEvent,
  initialBuildProgress,
  renderBuildProgress,
  renderBuildSummary,
  renderDryRun
} from "../../../src/programs/builder/BuildProgress.js"
import { estimateBuild } from "../../../src/programs/builder/Estimate.js"
import { defaultParameters } from "../../../src/programs/builder/Plan.js"
import { textWidth } from "../../../src/text/TextTable.js"

const call = (kind: "event" | "scene", reused: boolean) => ({
  _tag: "CallFinished" as const,
  videoId: "clip",
  kind,
  reused,
  calls: reused ? 0 : 1,
  promptTokens: reused ? 0 : 900,
  completionTokens: reused ? 0 : 100
})

describe("build progress", () => {
  it("counts events, calls, reuse and tokens, with an ETA from the calls a model answered", () => {
    let state = initialBuildProgress(2)
    state = applyBuildEvent(state, {
      _tag: "VideoStarted",
      videoId: "clip",
      index: 0,
      total: 2,
      events: 10,
      frames: 100
    }, 0)
    state = applyBuildEvent(state, call("event", true), 0)
    state = applyBuildEvent(state, call("event", false), 1_000)
    state = applyBuildEvent(state, call("event", false), 3_000)
    state = applyBuildEvent(state, call("event", false), 5_000)
    // Two calls in the 4 s since the first one: 2 s a call, 6 events left.
    assert.strictEqual(
      renderBuildProgress(state, 5_000),
      "video 1/2 clip · events 4/10 · calls 3 (1 reused) · 3000 tokens · ETA 12s"
    )
    state = applyBuildEvent(state, call("scene", false), 6_000)
    assert.include(renderBuildProgress(state, 6_000), "scenes 1")
  })

  it("summary and dry-run tables", () => {
    const summary: VideoSummary = {
      videoId: "clip",
      treeDir: "trees/clip",
      durationSeconds: 600,
      frames: 300,
      framesSent: 300,
      events: 30,
      scenes: 2,
      calls: { vlm: 31, llm: 2, reused: 0 },
      tokens: { prompt: 120_000, completion: 20_000 },
      degraded: { events: 1, frames: 0, scenes: 0 },
      embedded: true,
      wallSeconds: 42.25,
      subtitles: "sidecar",
      damaged: []
    }
    const text = renderBuildSummary([summary, {
      ...summary,
      videoId: "other",
      degraded: { events: 0, frames: 0, scenes: 0 },
      subtitles: "asr"
    }])
    assert.match(
      text,
      /^video\s+duration\s+frames\s+events\s+scenes\s+vlm calls\s+llm calls\s+reused\s+tokens\s+degraded\s+time\s+subtitles$/m
    )
    assert.match(text, /^clip\s+10\.0 min\s+300\s+30\s+2\s+31\s+2\s+0\s+140k\s+1\s+42\.3 s\s+sidecar$/m)
    assert.match(text, /^other\s+.*\s+asr$/m)
    assert.match(text, /^total\s+20\.0 min\s+600\s+60\s+4\s+62\s+4\s+0\s+280k\s+1\s+84\.5 s$/m)
    assert.include(text, "clip: trees/clip/tree.json (retrieval embeddings cached)")
    assert.include(text, "degraded cards: 1 events, 0 frames, 0 scenes")
    assert.notInclude(text, "no picture")
    const damaged = renderBuildSummary([{
      ...summary,
      damaged: [
        { start: 10, end: 17.88, picture: "missing", decoder: "h264: Invalid NAL unit size (0 > 1184).", messages: 40 },
        { start: 40, end: 46, picture: "missing", decoder: "", messages: 0 },
        { start: 52, end: 56, picture: "corrupt", decoder: "h264: error while decoding MB 5 11", messages: 1 }
      ]
    }])
    assert.include(
      damaged,
      "clip: no picture from 10.0 s to 17.9 s (the decoder reported damaged data) — the tree has no frames there; " +
        "ffmpeg said: \"h264: Invalid NAL unit size (0 > 1184).\" and 39 more messages; get an intact copy"
    )
    assert.include(
      damaged,
      "clip: no picture from 40.0 s to 46.0 s (the decoder reported damaged data) — the tree has no frames there; get"
    )
    assert.include(
      damaged,
      "clip: damaged picture from 52.0 s to 56.0 s (the decoder reported errors and filled in what it could not read) — " +
        "frames and cards there may show grey or smeared blocks; ffmpeg said: \"h264: error while decoding MB 5 11\"; get"
    )
    // 視頻 takes four terminal columns: its figures still line up under the header's (issue #23).
    const [header, wide] = renderBuildSummary([{ ...summary, videoId: "視頻" }]).split("\n")
    const columnsTo = (line: string, end: string) => textWidth(line.slice(0, line.indexOf(end) + end.length))
    assert.strictEqual(columnsTo(wide!, "10.0 min"), columnsTo(header!, "duration"))
    assert.strictEqual(columnsTo(wide!, "42.3 s"), columnsTo(header!, "time"))
    const estimate = estimateBuild({
      durationSeconds: 3600,
      width: 1280,
      height: 720,
      subtitleChars: 0,
      promptChars: { event: 2000, scene: 1000 },
      parameters: defaultParameters
    })
    const dry = renderDryRun([{ videoId: "hour", estimate, subtitles: "dir" }])
    assert.match(dry, /^hour\s+60\.0 min\s+1800\s+180\s+12\s+180\s+12\s+0\s+1800\s+\S+\s+\S+\s+192\s+dir$/m)
    assert.notInclude(dry, "USD")
    // Priced: event tokens at the vision model's price, scene tokens at the text model's.
    const priced = renderDryRun([{ videoId: "hour", estimate, subtitles: "dir" }], {
      vlm: { input: 1, output: 4 },
      tool: { input: 0.5, output: 1 }
    })
    const usd = (estimate.tokens.vlm.prompt * 1 + estimate.tokens.vlm.completion * 4 +
      estimate.tokens.llm.prompt * 0.5 + estimate.tokens.llm.completion * 1) / 1e6
    assert.match(priced, /\bUSD\b/)
    assert.match(priced, new RegExp(`^hour\\s.*\\s\\$${usd.toFixed(2).replace(".", "\\.")}\\s+192\\s+dir$`, "m"))
    const half = renderDryRun([{ videoId: "hour", estimate, subtitles: "dir" }], { vlm: { input: 1, output: 4 } })
    assert.match(half, /^hour\s.*\sunknown\s+192\s+dir$/m)
    assert.include(half, "USD unknown: no price for the text model (VTREE_TOOL_PRICE)")
    assert.include(dry, "dry run: nothing was called or written")
    assert.notInclude(dry, "would not be sent")
    const long = estimateBuild({
      durationSeconds: 600,
      width: 1280,
      height: 720,
      subtitleChars: 0,
      promptChars: { event: 1, scene: 1 },
      parameters: { ...defaultParameters, eventSeconds: 60 }
    })
    // Events longer than one call holds are capped, not thinned: every frame is sent, and the note says so.
    assert.deepStrictEqual([long.framesSent, long.frames], [300, 300])
    assert.strictEqual(long.eventFrames.reduce((sum, n) => sum + n, 0), 300)
    const longText = renderDryRun([{ videoId: "long", estimate: long, subtitles: "none" }], {}, {
      ...defaultParameters,
      eventSeconds: 60
    })
    assert.notInclude(longText, "would not be sent")
    assert.include(longText, "events are 23 s, not --event-seconds 60")
  })

  it("the summary counts frames left without a card and says when events are shorter than asked", () => {
    const summary: VideoSummary = {
      videoId: "clip",
      treeDir: "trees/clip",
      durationSeconds: 600,
      frames: 300,
      framesSent: 264,
      events: 24,
      scenes: 2,
      calls: { vlm: 24, llm: 2, reused: 0 },
      tokens: { prompt: 1000, completion: 100 },
      degraded: { events: 0, frames: 0, scenes: 0 },
      embedded: false,
      wallSeconds: 1,
      subtitles: "none",
      damaged: []
    }
    const text = renderBuildSummary([summary], { ...defaultParameters, eventSeconds: 25 })
    assert.match(text, /^clip\s+10\.0 min\s+264\/300\s/m)
    assert.include(text, "uncaptioned frames: 36 of 300")
    assert.include(text, "events are 23 s, not --event-seconds 25")
    const whole = renderBuildSummary([{ ...summary, framesSent: 300 }], defaultParameters)
    assert.notInclude(whole, "uncaptioned")
    assert.notInclude(whole, "events are")
  })
})
