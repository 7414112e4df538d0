import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import jpeg from "jpeg-js"
import { cpSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as SharpThumbnailer from "../../../src/layers/sharp/SharpThumbnailer.js"
import { jpegSize, maxFrameSide } from "../../../src/programs/mcp/FrameTool.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../../src/programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { type CallResult, eras, sdkClient } from "../../support/mcp/SdkClient.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"
const frameId = (n: number) => `${video}_L1_000_L2_000_L3_00${n}`

/** A real JPEG of the given size: a gradient, so the encoder has something to encode. */
const largeJpeg = (width: number, height: number): Buffer => {
  const data = Buffer.alloc(width * height * 4)
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = i % 251
    data[i * 4 + 1] = (i / width) % 256
    data[i * 4 + 2] = 90
    data[i * 4 + 3] = 255
  }
  return Buffer.from(jpeg.encode({ width, height, data }, 85).data)
}

const noModels = Layer.mergeAll(
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no LLM in this test") })),
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") }))
)

/** The sample tree copied, with two frames replaced by a 1920x1080 and a 1000x2000 JPEG. */
const treeWithLargeFrames = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = makeTempDir("mcp-frames")
    cpSync(join(samples, video), join(dir, video), { recursive: true })
    writeFileSync(join(dir, video, "frames", "L1_000_L2_000_L3_000.jpg"), largeJpeg(1920, 1080))
    writeFileSync(join(dir, video, "frames", "L1_000_L2_000_L3_001.jpg"), largeJpeg(1000, 2000))
    return dir
  }),
  (dir) => Effect.sync(() => removeTempDir(dir))
)

describe.each(eras)("video_frames with frames larger than a host takes (%s client)", (era) => {
  it.scoped("scales each frame down to a long side of 768 px, keeping its aspect; small frames are sent as they are", () =>
    Effect.gen(function*() {
      const dir = yield* treeWithLargeFrames
      const library = yield* makeVideoLibrary(dir)
      const client = yield* sdkClient({
        name: "vtree",
        version: "0",
        tools: makeVideoTools({ library, prompts: testPrompts(), summarize: false }),
        resources: makeVideoResources(library)
      }, era)
      const result = (yield* Effect.promise(() =>
        client.callTool({ name: "video_frames", arguments: { node_ids: [frameId(0), frameId(1), frameId(2)] } })
      )) as CallResult
      assert.isNotTrue(result.isError)
      const images = result.content.filter((item) =>
        item.type === "image"
      )
      assert.strictEqual(images.length, 3)
      const sizes = images.map((image) => jpegSize(Buffer.from(image.data!, "base64")))
      assert.deepStrictEqual(sizes[0], { width: maxFrameSide, height: 432 })
      assert.deepStrictEqual(sizes[1], { width: 384, height: maxFrameSide })
      // The third is a sample frame already within the limit.
      assert.isAtMost(Math.max(sizes[2]!.width, sizes[2]!.height), maxFrameSide)
      const decoded = jpeg.decode(Buffer.from(images[0]!.data!, "base64"))
      assert.deepStrictEqual([decoded.width, decoded.height], [768, 432])
      assert.deepStrictEqual(
        result.structuredContent!.frames.map((frame: { node_id: string }) => frame.node_id),
        [frameId(0), frameId(1), frameId(2)]
      )

      // The frame resource is the same scaled JPEG.
      const resource = yield* Effect.promise(() => client.readResource({ uri: `vtree://frame/${frameId(0)}` }))
      const blob = (resource.contents[0] as { blob: string }).blob
      assert.deepStrictEqual(jpegSize(Buffer.from(blob, "base64")), { width: 768, height: 432 })
    }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, SharpThumbnailer.layer, noModels))))
})
