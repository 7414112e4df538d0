import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import * as ScriptedOcr from "../../../src/layers/testing/ScriptedOcr.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import type { VlmReply } from "../../../src/layers/testing/ScriptedVlm.js"
import type { OCRProvider } from "../../../src/services/OCRProvider.js"
import type { VisionRequest } from "../../../src/services/VLMProvider.js"
import { promptName, promptVar } from "../../support/agent/Prompts.js"
import { makeToolContext, noLlm, toolsOf } from "../../support/agent/ToolHarness.js"

const vlmReply = (request: VisionRequest): VlmReply =>
  promptName(request.text) === "observe_frame_extract"
    ? `three tomatoes in ${request.images.length} frames`
    : "details=three tomatoes confirmed; confidence=0.9"

const observe = (
  nodeIds: ReadonlyArray<string> | string,
  options: {
    readonly verifyVision?: boolean
    readonly vlm?: (request: VisionRequest) => VlmReply
    readonly ocr?: Layer.Layer<OCRProvider>
  } = {}
) =>
  Effect.gen(function*() {
    const vlm = yield* ScriptedVlm.make(options.vlm ?? vlmReply)
    const context = makeToolContext({ verifyVision: options.verifyVision ?? true })
    const result = yield* toolsOf(context).dispatch({ tool: "observe_frame", args: { node_ids: nodeIds } }).pipe(
      Effect.provide(Layer.mergeAll(vlm.layer, noLlm, options.ocr ?? Layer.empty))
    )
    return { output: result.output, requests: yield* vlm.requests, context }
  })

const dir = "/trees/vid/frames"

describe("observe_frame", () => {
  it.effect("1–4 L3 ids: subtitle context, observation and check", () =>
    Effect.gen(function*() {
      const { output, requests } = yield* observe(["vid_L1_000_L2_001_L3_000", "vid_L1_000_L2_001_L3_002"])
      assert.strictEqual(
        output,
        [
          "[Subtitle context] Three tomatoes.",
          "[Visual observation] three tomatoes in 2 frames",
          "[Check] details=three tomatoes confirmed; confidence=0.9"
        ].join("\n")
      )
      assert.strictEqual(requests.length, 2)
      assert.deepStrictEqual(requests[0]!.images, [
        `${dir}/vid_L1_000_L2_001_L3_000.jpg`,
        `${dir}/vid_L1_000_L2_001_L3_002.jpg`
      ])
      assert.strictEqual(requests[0]!.system, "TOOL-SYSTEM")
      assert.strictEqual(promptVar(requests[1]!.text, "draft"), "three tomatoes in 2 frames")
    }))

  it.effect("a single id may be given as a string", () =>
    Effect.gen(function*() {
      const { requests } = yield* observe("vid_L1_000_L2_001_L3_001")
      assert.strictEqual(requests[0]!.images.length, 1)
    }))

  it.effect("one L2 id is expanded to its frames", () =>
    Effect.gen(function*() {
      const { output, requests } = yield* observe(["vid_L1_000_L2_001"])
      assert.include(output, "[Visual observation] three tomatoes in 3 frames")
      assert.include(output, "[Subtitle context] Three tomatoes. Stir well.")
      assert.strictEqual(
        promptVar(requests[0]!.text, "node_ids"),
        "vid_L1_000_L2_001_L3_000, vid_L1_000_L2_001_L3_001, vid_L1_000_L2_001_L3_002"
      )
    }))

  it.effect("an L1 id, mixed levels, too many ids and unknown ids are error text with no model call", () =>
    Effect.gen(function*() {
      for (
        const ids of [
          ["vid_L1_000"],
          ["vid_L1_000_L2_001", "vid_L1_000_L2_001_L3_000"],
          [
            "vid_L1_000_L2_001_L3_000",
            "vid_L1_000_L2_001_L3_001",
            "vid_L1_000_L2_001_L3_002",
            "vid_L1_000_L2_001_L3_000",
            "vid_L1_000_L2_001_L3_001"
          ],
          ["vid_L1_000_L2_001_L3_099"]
        ]
      ) {
        const { output, requests } = yield* observe(ids)
        assert.match(output, /^\[Tool error\] /, ids.join(","))
        assert.strictEqual(requests.length, 0)
      }
    }))

  it.effect("the OCR transcript goes into the prompts", () =>
    Effect.gen(function*() {
      const { requests, context } = yield* observe(["vid_L1_000_L2_001_L3_002"], {
        ocr: ScriptedOcr.layer((paths) => `frame 1: SALT (${paths.length})`)
      })
      assert.strictEqual(promptVar(requests[0]!.text, "ocr"), "frame 1: SALT (1)")
      assert.strictEqual(context.stats.ocrFailed, 0)
    }))

  it.effect("an OCR failure degrades to no transcript and is counted", () =>
    Effect.gen(function*() {
      const { output, requests, context } = yield* observe(["vid_L1_000_L2_001_L3_002"], {
        ocr: ScriptedOcr.layer([new ProviderError({ provider: "monkeyocr", reason: "Transport", message: "refused" })])
      })
      assert.include(output, "[Visual observation] three tomatoes in 1 frames")
      assert.strictEqual(promptVar(requests[0]!.text, "ocr"), "")
      assert.strictEqual(context.stats.ocrFailed, 1)
    }))

  it.effect("verify off makes no verify call and prints no check", () =>
    Effect.gen(function*() {
      const { output, requests } = yield* observe(["vid_L1_000_L2_001_L3_000"], { verifyVision: false })
      assert.strictEqual(requests.length, 1)
      assert.notInclude(output, "[Check]")
    }))

  it.effect("extract failure → vision error; verify failure → check skipped", () =>
    Effect.gen(function*() {
      const broken = new ProviderError({ provider: "vlm", reason: "Server", status: 503, message: "vlm down" })
      const first = yield* observe(["vid_L1_000_L2_001_L3_000"], { vlm: () => broken })
      assert.include(first.output, "[Vision error] vlm down")
      assert.notInclude(first.output, "[Check]")
      assert.strictEqual(first.requests.length, 1)
      assert.strictEqual(first.context.stats.visionFailed, 1)
      const second = yield* observe(["vid_L1_000_L2_001_L3_000"], {
        vlm: (request) => (promptName(request.text) === "observe_frame_verify" ? broken : vlmReply(request))
      })
      assert.include(second.output, "[Visual observation] three tomatoes in 1 frames\n[Check] skipped (call failed)")
      assert.strictEqual(second.context.stats.visionVerifyFailed, 1)
    }))
})
