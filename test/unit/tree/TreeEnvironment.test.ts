import { Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { HashingEmbedder } from "../../../src/layers/testing/HashingEmbedder.js"
import { loadTreeEnvironment } from "../../../src/programs/tree/TreeLoader.js"
import { emptyUsage, withCallContext } from "../../../src/services/CallLog.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

type TreeJson = { nodes: Record<string, Record<string, unknown>> }

const makeTree = (dir: string, options: { framesPerEvent?: number; frames?: (id: string) => boolean } = {}) => {
  const tree = syntheticTree({
    videoId: "VID",
    scenes: 2,
    eventsPerScene: 2,
    framesPerEvent: options.framesPerEvent ?? 10
  }) as TreeJson
  tree.nodes["VID_L1_001_L2_001_L3_002"]!["card"] = { frame_summary: "a zeppelin above the harbour" }
  const custom = tree.nodes["VID_L1_001_L2_001_L3_003"]
  if (custom !== undefined) custom["frame_path"] = "custom/odd name.jpg"
  writeTree(dir, tree, options.frames === undefined ? {} : { frames: options.frames })
  return tree
}

const tempTree = (options: Parameters<typeof makeTree>[1] = {}) =>
  Effect.gen(function*() {
    // The folder is named after the videoID, as the loader requires.
    const dir = join(yield* scopedTempDir("tree"), "VID")
    const tree = makeTree(dir, options)
    return { dir, tree }
  })

/** Runs `effect` and returns how many embed calls it made, counted through recordCall. */
const countingEmbeds = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const usage = emptyUsage()
    const value = yield* withCallContext({ usage })(effect)
    return { value, embedCalls: usage.embed.calls }
  })

layer(NodeContext.layer)("TreeEnvironment", (it) => {
  it.scoped("loads a directory or its tree.json, and looks nodes up", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const env = yield* loadTreeEnvironment(dir)
      const viaFile = yield* loadTreeEnvironment(join(dir, "tree.json"))
      assert.strictEqual(viaFile.dir, env.dir)
      assert.deepStrictEqual(env.index.rootIds, ["VID_L1_000", "VID_L1_001"])
      const node = yield* env.getNode("VID_L1_001_L2_001_L3_002")
      assert.strictEqual(node.parentId, "VID_L1_001_L2_001")
      assert.strictEqual(yield* env.nodeText("VID_L1_001_L2_001_L3_002"), "frame_summary: a zeppelin above the harbour")
      const missing = yield* Effect.flip(env.getNode("VID_L9_999"))
      assert.strictEqual(missing._tag, "NodeNotFound")
      assert.strictEqual(missing.nodeId, "VID_L9_999")
      assert.include(missing.message, `"VID_L9_999"`)
      assert.strictEqual((yield* Effect.flip(env.anchoredText("nope")))._tag, "NodeNotFound")
    }))

  it.scoped("lists children with level, time range and summary", () =>
    Effect.gen(function*() {
      const { dir, tree } = yield* tempTree()
      const env = yield* loadTreeEnvironment(dir)
      const children = yield* env.children("VID_L1_000")
      assert.deepStrictEqual(children.map((child) => child.id), ["VID_L1_000_L2_000", "VID_L1_000_L2_001"])
      const card = tree.nodes["VID_L1_000_L2_001"]!["card"] as { event_description: string }
      assert.deepStrictEqual(children[1], {
        id: "VID_L1_000_L2_001",
        level: 2,
        timeRange: [150, 300],
        summary: card.event_description
      })
      assert.deepStrictEqual(yield* env.children("VID_L1_000_L2_000_L3_000"), [])
    }))

  it.scoped("fails cleanly on a missing or broken tree.json", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const dir = yield* scopedTempDir("tree-environment")
      const missing = yield* Effect.flip(loadTreeEnvironment(dir))
      assert.strictEqual(missing._tag, "TreeDecodeError")
      assert.include(missing.message, "tree.json: not found")
      writeFileSync(
        path.join(dir, "tree.json"),
        JSON.stringify({ videoID: "V", nodes: { V_L1_000: { level: "one", time_range: [0, 1] } } })
      )
      const bad = yield* Effect.flip(loadTreeEnvironment(dir))
      assert.include(bad.message, "nodes.V_L1_000.level: expected 1, 2 or 3")
    }))
})

layer(NodeContext.layer)("resolveFrames", (it) => {
  it.scoped("takes 1–4 L3 ids, in order, honouring frame_path", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const env = yield* loadTreeEnvironment(dir)
      const selection = yield* env.resolveFrames(["VID_L1_001_L2_001_L3_003", "VID_L1_000_L2_000_L3_001"])
      assert.deepStrictEqual(selection.nodeIds, ["VID_L1_001_L2_001_L3_003", "VID_L1_000_L2_000_L3_001"])
      assert.deepStrictEqual(selection.paths, [
        join(dir, "custom/odd name.jpg"),
        join(dir, "frames/L1_000_L2_000_L3_001.jpg")
      ])
    }))

  it.scoped("turns one L2 id into at most 8 of its L3 children, evenly sampled", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const env = yield* loadTreeEnvironment(dir)
      const selection = yield* env.resolveFrames(["VID_L1_000_L2_001"])
      const picked = selection.nodeIds.map((id) => Number(id.slice(-3)))
      assert.deepStrictEqual(picked, [0, 1, 3, 4, 5, 6, 8, 9])
      assert.strictEqual(selection.paths.length, 8)
    }))

  it.scoped("takes every child of a small event", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree({ framesPerEvent: 3 })
      const env = yield* loadTreeEnvironment(dir)
      assert.strictEqual((yield* env.resolveFrames(["VID_L1_000_L2_000"])).nodeIds.length, 3)
    }))

  it.scoped("explains each selection the rules forbid", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree({ frames: (id) => id !== "VID_L1_000_L2_000_L3_004" })
      const env = yield* loadTreeEnvironment(dir)
      const reject = (ids: ReadonlyArray<string>) =>
        Effect.flip(env.resolveFrames(ids)).pipe(
          Effect.tap((error) => assert.strictEqual(error._tag, "FrameSelectionError")),
          Effect.map((error) => `${error.reason}: ${error.message}`)
        )
      assert.include(yield* reject(["VID_L1_000"]), "SceneNode: VID_L1_000 is a scene (L1) node")
      assert.include(
        yield* reject(["VID_L1_000_L2_000", "VID_L1_000_L2_000_L3_000"]),
        "MixedLevels: mixed event (L2) and frame (L3) ids"
      )
      assert.include(yield* reject(["VID_L1_000_L2_000", "VID_L1_000_L2_001"]), "TooManyIds: 2 event (L2) ids given")
      assert.include(
        yield* reject(["VID_L1_000_L2_000_L3_077", "VID_X"]),
        "UnknownId: unknown node ids: VID_L1_000_L2_000_L3_077, VID_X"
      )
      const five = [0, 1, 2, 3, 5].map((i) => `VID_L1_000_L2_001_L3_00${i}`)
      assert.include(yield* reject(five), "TooManyIds: 5 frame ids given, at most 4")
      assert.include(yield* reject([]), "NoIds: no node ids given")
      assert.include(
        yield* reject(["VID_L1_000_L2_000_L3_004"]),
        "MissingImage: no frame image for VID_L1_000_L2_000_L3_004 (frames/L1_000_L2_000_L3_004.jpg)"
      )
      // An event sampling over a missing frame fails the same way rather than sending fewer images.
      assert.include(yield* reject(["VID_L1_000_L2_000"]), "MissingImage: no frame image for VID_L1_000_L2_000_L3_004")
    }))
})

const embedder = HashingEmbedder.layer({ dimensions: 128 })

layer(Layer.merge(NodeContext.layer, embedder))("embedding cache", (it) => {
  const cacheFiles = (dir: string) => readdirSync(join(dir, ".vtree"))

  it.scoped("embeds at the first load, reuses the cache on the second, embeds only the query when searching", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const first = yield* countingEmbeds(loadTreeEnvironment(dir))
      assert.strictEqual(first.embedCalls, 1)
      assert.strictEqual(cacheFiles(dir).length, 1)
      assert.match(cacheFiles(dir)[0]!, /^embeddings-hashing-128-[0-9a-f]{8}\.bin$/)
      const second = yield* countingEmbeds(loadTreeEnvironment(dir))
      assert.strictEqual(second.embedCalls, 0)
      const search = yield* countingEmbeds(second.value.search("zeppelin harbour"))
      assert.strictEqual(search.embedCalls, 1)
      assert.strictEqual(search.value[0]!.nodeId, "VID_L1_001_L2_001_L3_002")
      assert.strictEqual(search.value.length, 5)
    }))

  it.scoped("rebuilds the cache when the tree changes", () =>
    Effect.gen(function*() {
      const { dir, tree } = yield* tempTree()
      yield* loadTreeEnvironment(dir)
      tree.nodes["VID_L1_000_L2_000_L3_000"]!["card"] = { frame_summary: "a new description" }
      writeFileSync(join(dir, "tree.json"), JSON.stringify(tree))
      const reloaded = yield* countingEmbeds(loadTreeEnvironment(dir))
      assert.strictEqual(reloaded.embedCalls, 1)
      assert.strictEqual((yield* countingEmbeds(loadTreeEnvironment(dir))).embedCalls, 0)
      assert.strictEqual(cacheFiles(dir).length, 1)
    }))

  it.scoped("rebuilds a truncated or corrupt cache instead of failing", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      yield* loadTreeEnvironment(dir)
      const file = join(dir, ".vtree", cacheFiles(dir)[0]!)
      const intact = readFileSync(file)
      writeFileSync(file, intact.subarray(0, intact.length - 100))
      assert.strictEqual((yield* countingEmbeds(loadTreeEnvironment(dir))).embedCalls, 1)
      assert.deepStrictEqual(readFileSync(file), intact)
      writeFileSync(file, "garbage")
      assert.strictEqual((yield* countingEmbeds(loadTreeEnvironment(dir))).embedCalls, 1)
      const nan = Buffer.from(intact)
      nan.writeFloatLE(Number.NaN, nan.length - 4)
      writeFileSync(file, nan)
      const env = yield* countingEmbeds(loadTreeEnvironment(dir))
      assert.strictEqual(env.embedCalls, 1)
      assert.strictEqual((yield* env.value.search("zeppelin"))[0]!.nodeId, "VID_L1_001_L2_001_L3_002")
    }))

  it.scoped("keeps one cache per model", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      yield* loadTreeEnvironment(dir)
      const other = yield* countingEmbeds(
        loadTreeEnvironment(dir).pipe(Effect.provide(HashingEmbedder.layer({ dimensions: 64 })))
      )
      assert.strictEqual(other.embedCalls, 1)
      assert.strictEqual(cacheFiles(dir).length, 2)
    }))
})
