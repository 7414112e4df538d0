// observe_frame with the tesseract OCRProvider: the frame is a JPEG with text drawn into it, the vision
// model is a scripted fake, and what it is asked must carry what tesseract read.
import { NodeFileSystem } from "@effect/platform-node"
import * as FileSystem from "@effect/platform/FileSystem"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Path from "node:path"
import * as TesseractOcr from "../../../src/layers/tesseract/TesseractOcr.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { sampleTree } from "../../support/agent/MemoryTree.js"
import { promptName, promptVar } from "../../support/agent/Prompts.js"
import { makeToolContext, noLlm, toolsOf } from "../../support/agent/ToolHarness.js"
import { renderTextFrame } from "../../support/ocr/RenderFrame.js"
import { scopedTempDir } from "../../support/TempDir.js"

describe("observe_frame with tesseract OCR", () => {
  it.scopedLive("the vision model sees the text tesseract read from the frame", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("observe-frame-ocr")
      const frame = "vid_L1_000_L2_001_L3_002"
      yield* (yield* FileSystem.FileSystem).makeDirectory(Path.join(dir, "frames"))
      yield* Effect.promise(() =>
        renderTextFrame(Path.join(dir, "frames", `${frame}.jpg`), { lines: ["Add 3 tomatoes", "Salt to taste"] })
      )

      const vlm = yield* ScriptedVlm.make((request) =>
        promptName(request.text) === "observe_frame_extract" ? "a recipe card" : "details=recipe card; confidence=0.8"
      )
      const context = makeToolContext({ tree: sampleTree({ dir }) })
      const result = yield* toolsOf(context).dispatch({ tool: "observe_frame", args: { node_ids: [frame] } }).pipe(
        Effect.provide(Layer.mergeAll(vlm.layer, noLlm, TesseractOcr.layer({ langs: ["eng"] })))
      )

      const requests = yield* vlm.requests
      assert.strictEqual(requests.length, 2)
      assert.deepStrictEqual(requests[0]!.images, [Path.join(dir, "frames", `${frame}.jpg`)])
      const transcript = `ocr=[Frame 1/1] ${frame}.jpg\nAdd 3 tomatoes\nSalt to taste`
      // The test prompts list variables in order, ocr last but for the verify round's draft.
      assert.isTrue(requests[0]!.text.endsWith(`\n${transcript}`), requests[0]!.text)
      assert.include(requests[1]!.text, `\n${transcript}\ndraft=a recipe card`)
      assert.strictEqual(promptVar(requests[0]!.text, "ocr"), `[Frame 1/1] ${frame}.jpg`)
      assert.strictEqual(context.stats.ocrFailed, 0)
      assert.include(result.output, "[Visual observation] a recipe card")
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scopedLive("a frame tesseract cannot read leaves no transcript and counts ocr_failed", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* scopedTempDir("observe-frame-ocr")
      const frame = "vid_L1_000_L2_001_L3_002"
      yield* fs.makeDirectory(Path.join(dir, "frames"))
      yield* fs.writeFileString(Path.join(dir, "frames", `${frame}.jpg`), "not a picture")

      const vlm = yield* ScriptedVlm.make((request) =>
        promptName(request.text) === "observe_frame_extract" ? "a blank card" : "details=blank; confidence=0.5"
      )
      const context = makeToolContext({ tree: sampleTree({ dir }), verifyVision: false })
      const result = yield* toolsOf(context).dispatch({ tool: "observe_frame", args: { node_ids: [frame] } }).pipe(
        Effect.provide(Layer.mergeAll(vlm.layer, noLlm, TesseractOcr.layer({ langs: ["eng"] })))
      )
      assert.strictEqual(promptVar((yield* vlm.requests)[0]!.text, "ocr"), "")
      assert.strictEqual(context.stats.ocrFailed, 1)
      assert.include(result.output, "[Visual observation] a blank card")
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})
