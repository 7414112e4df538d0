import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { treePage } from "../../../src/programs/tree/TreePage.js"
import { Thumbnailer } from "../../../src/services/Thumbnailer.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

// A page over the node cap is refused before any thumbnail is made: a 400,000-node tree made a 365 MB page in 244 s.
const noThumbnails = Thumbnailer.of({ thumbnail: () => Effect.dieMessage("a refused page makes no thumbnail") })

/** `count` trees of 1 scene, 2 events and 3 frames an event (9 nodes each) under `<temp>/trees`. */
const trees = (count: number) =>
  Effect.gen(function*() {
    const root = yield* scopedTempDir("tree-page")
    const folder = join(root, "trees")
    for (let n = 0; n < count; n++) {
      writeTree(
        join(folder, `V${n}`),
        syntheticTree({ videoId: `V${n}`, scenes: 1, eventsPerScene: 2, framesPerEvent: 3 }),
        { frames: false }
      )
    }
    return { root, folder }
  })

layer(NodeContext.layer)("tree html: a page has a node cap", (it) => {
  it.scoped("a tree over the cap is refused with one line naming its size and what to use instead", () =>
    Effect.gen(function*() {
      const { folder, root } = yield* trees(1)
      const error = yield* Effect.flip(
        treePage(join(folder, "V0"), { mode: "link", pageDir: root, maxNodes: 8 }).pipe(
          Effect.provideService(Thumbnailer, noThumbnails)
        )
      )
      assert.strictEqual(error._tag, "TreePageError")
      assert.strictEqual(error.reason, "TooLarge")
      assert.include(error.message, "9 nodes")
      assert.include(error.message, "8")
      assert.include(error.message, "vtree tree show")
      assert.notInclude(error.message, "\n")
    }))

  it.scoped("a trees folder over the cap is refused with the hint to write a page per tree; under it, one page", () =>
    Effect.gen(function*() {
      const { folder, root } = yield* trees(2)
      const error = yield* Effect.flip(
        treePage(folder, { mode: "link", pageDir: root, maxNodes: 17 }).pipe(
          Effect.provideService(Thumbnailer, noThumbnails)
        )
      )
      assert.strictEqual(error._tag, "TreePageError")
      assert.include(error.message, "18 nodes")
      assert.include(error.message, join(folder, "<videoID>"))
      const { page } = yield* treePage(folder, { mode: "link", pageDir: root, maxNodes: 18 }).pipe(
        Effect.provideService(Thumbnailer, noThumbnails)
      )
      assert.include(page, "V0_L1_000_L2_001_L3_002")
      assert.include(page, "V1_L1_000")
    }))
})
