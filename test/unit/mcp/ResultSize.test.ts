import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { Thumbnailer } from "../../../src/services/Thumbnailer.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

const context = { progress: () => Effect.void }
const noModels = Layer.mergeAll(
  NodeContext.layer,
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no LLM in this test") })),
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })),
  Layer.succeed(Thumbnailer, Thumbnailer.of({ thumbnail: () => Effect.dieMessage("no thumbnails in this test") }))
)

describe("video tools' replies within a host's 50,000 characters", () => {
  it.scoped("video_view_node of a scene with 400 events lists the children that fit, says it cut, and stays valid JSON", () =>
    Effect.gen(function*() {
      const trees = join(yield* scopedTempDir("result-size"), "trees")
      writeTree(join(trees, "VID"), syntheticTree({ scenes: 1, eventsPerScene: 400, framesPerEvent: 0 }), {
        frames: false
      })
      const library = yield* makeVideoLibrary(trees)
      const tool = makeVideoTools({ library, prompts: testPrompts(), summarize: false })
        .find((tool) => tool.name === "video_view_node")!
      const reply = yield* tool.call({ node_id: "VID_L1_000" }, context)
      assert.isFalse(reply.isError)
      assert.strictEqual(reply.content.length, 1)
      const text = (reply.content[0] as { text: string }).text
      assert.isAtMost(text.length, 50_000)
      const body = JSON.parse(text)
      assert.isTrue(body.truncated)
      assert.isAbove(body.children.length, 50)
      assert.isBelow(body.children.length, 400)
    }).pipe(Effect.provide(noModels)))
})
