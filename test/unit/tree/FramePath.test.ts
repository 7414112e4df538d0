import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { MediaError } from "../../../src/domain/Media.js"
import type { TreeNode } from "../../../src/domain/TreeIndex.js"
import { frameRelativePath, resolveFramePath } from "../../../src/programs/tree/FramePath.js"
import { loadTreeEnvironment, readTreeIndex } from "../../../src/programs/tree/TreeLoader.js"
import { treePage } from "../../../src/programs/tree/TreePage.js"
import { Thumbnailer } from "../../../src/services/Thumbnailer.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

const frameId = "VID_L1_000_L2_000_L3_000"

/** A one-event tree in `<temp>/VID`, a secret JPEG beside it (outside the tree), and its index. */
const hostileSetup = Effect.gen(function*() {
  const root = yield* scopedTempDir("framepath")
  const dir = join(root, "VID")
  writeTree(dir, syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 1, framesPerEvent: 3 }))
  mkdirSync(join(root, "secret"))
  writeFileSync(join(root, "secret", "photo.jpg"), Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]))
  const { index } = yield* readTreeIndex(dir)
  const frame = index.nodes.get(frameId)!
  const node = (changes: Partial<TreeNode>): TreeNode => ({ ...frame, ...changes })
  return { root, dir, index, node }
})

layer(NodeContext.layer)("FramePath: the one resolver of frame files", (it) => {
  it.scoped("a node's frame is frames/<id without the video prefix>.jpg, or its frame_path, inside the tree", () =>
    Effect.gen(function*() {
      const { dir, index, node } = yield* hostileSetup
      assert.strictEqual(yield* resolveFramePath(dir, index, node({})), join(dir, "frames", "L1_000_L2_000_L3_000.jpg"))
      assert.strictEqual(
        yield* resolveFramePath(dir, index, node({ framePath: "custom/odd name.jpg" })),
        join(dir, "custom", "odd name.jpg")
      )
    }))

  it.scoped("refuses a node id that climbs out of the tree (vid_../../…), naming the node", () =>
    Effect.gen(function*() {
      const { dir, index, node } = yield* hostileSetup
      const hostile = node({ id: "VID_../../secret/photo" })
      const error = yield* Effect.flip(resolveFramePath(dir, index, hostile))
      assert.strictEqual(error._tag, "FramePathError")
      assert.strictEqual(error.reason, "OutsideTree")
      assert.strictEqual(error.nodeId, "VID_../../secret/photo")
      assert.include(error.message, "leaves the tree's folder")
      assert.notInclude(error.message, "\n")
      assert.isTrue(Either.isLeft(frameRelativePath(index, node({ id: "VID_../../../../etc/x" }))))
    }))

  it.scoped("refuses absolute, drive, backslash-climbing and NUL frame paths", () =>
    Effect.gen(function*() {
      const { dir, index, node } = yield* hostileSetup
      for (
        const framePath of [
          "/etc/passwd",
          "C:\\secret.jpg",
          "frames\\..\\..\\secret.jpg",
          "frames/../../x.jpg",
          "a\0.jpg"
        ]
      ) {
        const error = yield* Effect.flip(resolveFramePath(dir, index, node({ framePath })))
        assert.strictEqual(error.reason, "OutsideTree", framePath)
      }
    }))

  it.scoped("refuses a frame that is a link out of the tree, and follows one that stays inside", () =>
    Effect.gen(function*() {
      const { dir, index, node, root } = yield* hostileSetup
      symlinkSync(join(root, "secret", "photo.jpg"), join(dir, "frames", "L1_000_L2_000_L3_001.jpg.out"))
      const out = yield* Effect.flip(
        resolveFramePath(dir, index, node({ framePath: "frames/L1_000_L2_000_L3_001.jpg.out" }))
      )
      assert.include(out.message, "outside the tree's folder")
      symlinkSync(join(root, "secret"), join(dir, "linked"))
      const viaFolder = yield* Effect.flip(resolveFramePath(dir, index, node({ framePath: "linked/photo.jpg" })))
      assert.strictEqual(viaFolder.reason, "OutsideTree")
      symlinkSync(join(dir, "frames", "L1_000_L2_000_L3_002.jpg"), join(dir, "inside.jpg"))
      assert.strictEqual(
        yield* resolveFramePath(dir, index, node({ framePath: "inside.jpg" })),
        join(dir, "inside.jpg")
      )
    }))

  it.scoped("a missing frame file resolves (the reader says it is missing)", () =>
    Effect.gen(function*() {
      const { dir, index, node } = yield* hostileSetup
      assert.strictEqual(
        yield* resolveFramePath(dir, index, node({ framePath: "frames/gone.jpg" })),
        join(dir, "frames", "gone.jpg")
      )
    }))

  it.scoped("a hostile node id is refused when the tree loads; observe_frame refuses a link out with OutsideTree", () =>
    Effect.gen(function*() {
      const root = yield* scopedTempDir("framepath")
      const dir = join(root, "VID")
      const tree = syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }) as {
        nodes: Record<string, Record<string, unknown>>
      }
      const hostile = "VID_../../secret/photo"
      tree.nodes[hostile] = { ...tree.nodes[frameId]!, id: hostile }
      delete tree.nodes[frameId]
      ;(tree.nodes["VID_L1_000_L2_000"]!["children_ids"] as Array<string>).splice(0, 1, hostile)
      writeTree(dir, tree, { frames: false })
      mkdirSync(join(root, "secret"))
      writeFileSync(join(root, "secret", "photo.jpg"), Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]))
      const refused = yield* Effect.flip(loadTreeEnvironment(dir))
      assert.strictEqual(refused._tag, "TreeDecodeError")
      assert.include(refused.message, `node id "${hostile}" contains a path separator`)
      const linked = join(root, "linked")
      writeTree(linked, syntheticTree({ videoId: "linked", scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }), {
        frames: false
      })
      mkdirSync(join(linked, "frames"))
      symlinkSync(join(root, "secret", "photo.jpg"), join(linked, "frames", "L1_000_L2_000_L3_000.jpg"))
      const env = yield* loadTreeEnvironment(linked)
      const error = yield* Effect.flip(env.resolveFrames(["linked_L1_000_L2_000_L3_000"]))
      assert.strictEqual(error.reason, "OutsideTree")
      assert.notInclude(error.message, root)
    }))
})

layer(NodeContext.layer)("FramePath: tree pages", (it) => {
  /** A one-frame tree VID in a new folder whose frame file is absent; `edit` may put something in its place. */
  const pageTree = (edit: (root: string, frame: string) => void = () => {}) =>
    Effect.gen(function*() {
      const root = yield* scopedTempDir("framepath")
      const dir = join(root, "VID")
      writeTree(dir, syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }), {
        frames: false
      })
      mkdirSync(join(dir, "frames"))
      mkdirSync(join(root, "secret"))
      writeFileSync(join(root, "secret", "photo.jpg"), Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]))
      edit(root, join(dir, "frames", "L1_000_L2_000_L3_000.jpg"))
      return { root, dir }
    })
  const linksOnly = Thumbnailer.of({ thumbnail: () => Effect.dieMessage("links only") })

  it.scoped("tree html shows a frame linked out of the tree as not shown, never linking the file outside", () =>
    Effect.gen(function*() {
      const { dir, root } = yield* pageTree((root, frame) => symlinkSync(join(root, "secret", "photo.jpg"), frame))
      const { page } = yield* treePage(dir, { mode: "link", pageDir: root }).pipe(
        Effect.provideService(Thumbnailer, linksOnly)
      )
      assert.notInclude(page, "secret/photo.jpg")
      assert.include(page, "frame not shown: frame path")
      assert.include(page, "outside the tree&#39;s folder")
      assert.notInclude(page, root)
    }))

  it.scoped("a missing frame is named relative to its tree, never by its absolute local path (issue #39)", () =>
    Effect.gen(function*() {
      const { dir, root } = yield* pageTree()
      const linked = yield* treePage(dir, { mode: "link", pageDir: root }).pipe(
        Effect.provideService(Thumbnailer, linksOnly)
      )
      assert.include(linked.page, "frames/L1_000_L2_000_L3_000.jpg: not found")
      assert.notInclude(linked.page, root)
      // A thumbnailer's error names the file it was given, as sharp's does: the page names it relative.
      const embedded = yield* treePage(dir, { mode: "embed", pageDir: root }).pipe(
        Effect.provideService(
          Thumbnailer,
          Thumbnailer.of({
            thumbnail: (path) =>
              Effect.fail(
                new MediaError({ reason: "Unreadable", path, message: `${path}: not found — re-run vtree build` })
              )
          })
        )
      )
      assert.include(embedded.page, "frames/L1_000_L2_000_L3_000.jpg: not found — re-run vtree build")
      assert.notInclude(embedded.page, root)
    }))
})
