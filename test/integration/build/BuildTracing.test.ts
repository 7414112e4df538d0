// `vtree build` in-process exporting its spans over OTLP/HTTP to a loopback receiver that decodes them with
// OpenTelemetry's generated decoder: one trace for the command (an `invoke_workflow` span), a span per video,
// per event call and per scene call, each holding its model call with the tokens tree.json records, and no
// content or key.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { buildSim, synthVideo } from "../../support/build/SynthBuild.js"
import { runCli } from "../../support/cli/InProcess.js"
import type { tempDir } from "../../support/harness/Cli.js"
import { simEnv } from "../../support/harness/Cli.js"
import { toolModel, vlmModel } from "../../support/harness/Policy.js"
import type { SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"
import { type ReceivedSpan, SpanKind, startReceiver } from "../../support/otlp/Receiver.js"

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

const childrenOf = (spans: ReadonlyArray<ReceivedSpan>, parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId)

/** Every span below `parent`, at any depth. */
const inside = (spans: ReadonlyArray<ReceivedSpan>, parent: ReceivedSpan): Array<ReceivedSpan> =>
  childrenOf(spans, parent).flatMap((child) => [child, ...inside(spans, child)])

interface BuiltTree {
  readonly build: {
    readonly calls: { readonly vlm: number; readonly llm: number }
    readonly tokens: { readonly prompt: number; readonly completion: number }
  }
  readonly nodes: Record<string, { readonly level: number }>
}

describe("vtree build exporting traces (in-process, live ffmpeg, openai-sim)", () => {
  it("sends one trace: the command, its video, each event and scene call with its model call", async () => {
    const otlp = await startReceiver()
    try {
      const out = join(work.dir, "traced")
      const built = await runCli(
        ["build", video.video, "--out", out],
        simEnv(sim.url, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, VTREE_LLM_API_KEY: "sk-build-never-in-a-span" })
      )
      assert.strictEqual(built.code, 0, built.stderr)
      assert.notInclude(built.stderr, "trace export")
      const spans = otlp.spans
      const tree = JSON.parse(readFileSync(join(out, "synth", "tree.json"), "utf8")) as BuiltTree
      const levels = Object.values(tree.nodes).map((node) => node.level)

      // One root, the command as a GenAI workflow (typed for Langfuse and Phoenix), and everything else in its trace.
      const roots = spans.filter((s) => !spans.some((p) => p.spanId === s.parentSpanId))
      assert.deepStrictEqual(roots.map((s) => s.name), ["invoke_workflow vtree build"])
      assert.deepInclude(roots[0]!.attributes, {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": "vtree build",
        "gen_ai.invocation.is_nested": false,
        "langfuse.observation.type": "chain",
        "openinference.span.kind": "CHAIN"
      })
      assert.isTrue(spans.every((s) => s.traceId === roots[0]!.traceId))

      const videos = spans.filter((s) => s.name === "BuildTree.captionVideo")
      assert.deepStrictEqual(videos.map((s) => s.attributes["vtree.video_id"]), ["synth"])
      const below = inside(spans, videos[0]!)

      // A span per event call and per scene call, as many as the tree has events and scenes.
      const events = below.filter((s) => s.name === "caption_event")
      const scenes = below.filter((s) => s.name === "caption_scene")
      assert.strictEqual(events.length, levels.filter((level) => level === 2).length)
      assert.strictEqual(scenes.length, levels.filter((level) => level === 1).length)
      assert.deepStrictEqual(
        events.map((s) => s.attributes["vtree.event"]).sort(),
        events.map((_, i) => i + 1)
      )
      assert.isTrue([...events, ...scenes].every((s) => s.attributes["vtree.video_id"] === "synth"))
      // Steps of the workflow, not GenAI operations: a plain span for Langfuse, a chain link for Phoenix.
      assert.isTrue(
        [...events, ...scenes].every((s) =>
          s.attributes["langfuse.observation.type"] === "span" && s.attributes["openinference.span.kind"] === "CHAIN" &&
          !("gen_ai.operation.name" in s.attributes)
        )
      )

      // Each holds its model call: the vision model for an event, the text model for a scene.
      const chatsIn = (span: ReceivedSpan) => inside(spans, span).filter((s) => s.name.startsWith("chat "))
      for (const event of events) {
        const chats = chatsIn(event)
        assert.isAbove(chats.length, 0, `event ${event.attributes["vtree.event"]}`)
        assert.isTrue(chats.every((s) => s.name === `chat ${vlmModel}` && s.attributes["vtree.role"] === "vlm"))
      }
      for (const scene of scenes) {
        const chats = chatsIn(scene)
        assert.isAbove(chats.length, 0)
        assert.isTrue(chats.every((s) => s.name === `chat ${toolModel}` && s.attributes["vtree.role"] === "tool"))
      }

      // Every model call of the build is a CLIENT span with the figures tree.json records.
      const chats = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat")
      assert.isTrue(chats.every((s) => s.kind === SpanKind.CLIENT && s.attributes["gen_ai.provider.name"] === "openai"))
      assert.isTrue(
        chats.every((s) =>
          s.attributes["langfuse.observation.type"] === "generation" &&
          s.attributes["openinference.span.kind"] === "LLM"
        )
      )
      // Nothing in a build is an agent: no invocation is nested.
      assert.isFalse(spans.some((s) => s.attributes["gen_ai.invocation.is_nested"] === true))
      const count = (role: string) => chats.filter((s) => s.attributes["vtree.role"] === role).length
      assert.deepStrictEqual({ vlm: count("vlm"), llm: count("tool") }, tree.build.calls)
      const total = (key: string) => chats.reduce((sum, s) => sum + Number(s.attributes[key] ?? 0), 0)
      assert.deepStrictEqual(
        { prompt: total("gen_ai.usage.input_tokens"), completion: total("gen_ai.usage.output_tokens") },
        tree.build.tokens
      )

      // No content unless asked for, and never a key.
      assert.isFalse(spans.some((s) => "gen_ai.input.messages" in s.attributes))
      assert.isFalse(spans.some((s) => JSON.stringify(s).includes("sk-build-never-in-a-span")))
    } finally {
      await otlp.close()
    }
  }, 120_000)
})
