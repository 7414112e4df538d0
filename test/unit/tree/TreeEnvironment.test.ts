import { Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Fiber, Layer, TestClock } from "effect"
import {
  chmodSync,
  copyFileSync,
  type Dirent,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from "node:fs"
import { basename, join, relative } from "node:path"
import { HashingEmbedder, makeHashingEmbedder } from "../../../src/layers/testing/HashingEmbedder.js"
import { searchOrKeywords } from "../../../src/programs/tree/KeywordFallback.js"
import { loadTreeEnvironment } from "../../../src/programs/tree/TreeLoader.js"
import { emptyUsage, withCallContext } from "../../../src/services/CallLog.js"
import { EmbeddingProvider } from "../../../src/services/EmbeddingProvider.js"
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

/** Runs `effect` with VTREE_CACHE_DIR at a fresh folder, returned beside the value. */
const withCacheDir = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const cache = yield* scopedTempDir("cache")
    const value = yield* effect.pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VTREE_CACHE_DIR", cache]])))
    )
    return { cache, value }
  })

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): ReadonlyArray<string> =>
  (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<Dirent>)
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort()

/**
 * An embedder that counts the texts of each call; `never` makes the calls it picks hang, opening `hung`
 * so that a test moves the clock only once a call waits.
 */
const countingEmbedder = (options: { readonly never?: (texts: ReadonlyArray<string>) => boolean } = {}) => {
  const batches: Array<number> = []
  const hung = Effect.runSync(Effect.makeLatch(false))
  const inner = makeHashingEmbedder({ dimensions: 32 })
  const provider = EmbeddingProvider.of({
    ...inner,
    embed: (texts) =>
      options.never?.(texts) === true
        ? Effect.zipRight(hung.open, Effect.never)
        : Effect.zipRight(Effect.sync(() => void batches.push(texts.length)), inner.embed(texts))
  })
  return { batches, hung, layer: Layer.succeed(EmbeddingProvider, provider) }
}

layer(Layer.merge(NodeContext.layer, embedder))("embedding cache", (it) => {
  const cacheFiles = (cache: string) => filesUnder(cache).filter((file) => file.endsWith(".bin"))

  it.scoped("embeds at the first load, reuses the cache on the second, embeds only the query when searching", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const { cache, value: first } = yield* withCacheDir(countingEmbeds(loadTreeEnvironment(dir)))
      assert.strictEqual(first.embedCalls, 1)
      assert.strictEqual(cacheFiles(cache).length, 1)
      assert.match(cacheFiles(cache)[0]!, /embeddings-hashing-128-[0-9a-f]{8}\.bin$/)
      const second = yield* countingEmbeds(loadTreeEnvironment(dir)).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VTREE_CACHE_DIR", cache]])))
      )
      assert.strictEqual(second.embedCalls, 0)
      const search = yield* countingEmbeds(second.value.search("zeppelin harbour"))
      assert.strictEqual(search.embedCalls, 1)
      assert.strictEqual(search.value[0]!.nodeId, "VID_L1_001_L2_001_L3_002")
      assert.strictEqual(search.value.length, 5)
    }))

  it.scoped("writes nothing into the trees folder: the cache goes to VTREE_CACHE_DIR, one per tree", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const other = join(yield* scopedTempDir("tree"), "VID")
      makeTree(other)
      const before = filesUnder(dir)
      const { cache } = yield* withCacheDir(
        Effect.zipRight(loadTreeEnvironment(dir), loadTreeEnvironment(other)).pipe(
          Effect.zipRight(Effect.void)
        )
      )
      assert.deepStrictEqual(filesUnder(dir), before)
      assert.isFalse(existsSync(join(dir, ".vtree")))
      // Two trees of one videoID in two folders never share a cache file.
      assert.strictEqual(cacheFiles(cache).length, 2)
    }))

  it.scoped("loads a read-only tree folder and leaves it as it was", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const before = filesUnder(dir)
      chmodSync(dir, 0o555)
      yield* Effect.addFinalizer(() => Effect.sync(() => chmodSync(dir, 0o755)))
      const { value: env } = yield* withCacheDir(loadTreeEnvironment(dir))
      assert.strictEqual((yield* env.search("zeppelin"))[0]!.nodeId, "VID_L1_001_L2_001_L3_002")
      // As root chmod does not stop a write: what the folder holds is the proof.
      assert.deepStrictEqual(filesUnder(dir), before)
    }))

  it.scoped("reads a cache an older vtree left in <tree>/.vtree/, without writing there", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const { cache } = yield* withCacheDir(loadTreeEnvironment(dir))
      const [file] = cacheFiles(cache)
      mkdirSync(join(dir, ".vtree"))
      copyFileSync(join(cache, file!), join(dir, ".vtree", basename(file!)))
      const again = yield* withCacheDir(countingEmbeds(loadTreeEnvironment(dir)))
      assert.strictEqual(again.value.embedCalls, 0)
      assert.deepStrictEqual(cacheFiles(again.cache), [])
    }))

  it.scoped("rebuilds the cache when the tree changes", () =>
    Effect.gen(function*() {
      const { dir, tree } = yield* tempTree()
      const { cache } = yield* withCacheDir(loadTreeEnvironment(dir))
      const inCache = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        effect.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VTREE_CACHE_DIR", cache]]))))
      tree.nodes["VID_L1_000_L2_000_L3_000"]!["card"] = { frame_summary: "a new description" }
      writeFileSync(join(dir, "tree.json"), JSON.stringify(tree))
      const reloaded = yield* inCache(countingEmbeds(loadTreeEnvironment(dir)))
      assert.strictEqual(reloaded.embedCalls, 1)
      assert.strictEqual((yield* inCache(countingEmbeds(loadTreeEnvironment(dir)))).embedCalls, 0)
      assert.strictEqual(cacheFiles(cache).length, 1)
    }))

  it.scoped("rebuilds a truncated or corrupt cache instead of failing", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const { cache } = yield* withCacheDir(loadTreeEnvironment(dir))
      const inCache = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        effect.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VTREE_CACHE_DIR", cache]]))))
      const file = join(cache, cacheFiles(cache)[0]!)
      const intact = readFileSync(file)
      writeFileSync(file, intact.subarray(0, intact.length - 100))
      assert.strictEqual((yield* inCache(countingEmbeds(loadTreeEnvironment(dir)))).embedCalls, 1)
      assert.deepStrictEqual(readFileSync(file), intact)
      writeFileSync(file, "garbage")
      assert.strictEqual((yield* inCache(countingEmbeds(loadTreeEnvironment(dir)))).embedCalls, 1)
      const nan = Buffer.from(intact)
      nan.writeFloatLE(Number.NaN, nan.length - 4)
      writeFileSync(file, nan)
      const env = yield* inCache(countingEmbeds(loadTreeEnvironment(dir)))
      assert.strictEqual(env.embedCalls, 1)
      assert.strictEqual((yield* env.value.search("zeppelin"))[0]!.nodeId, "VID_L1_001_L2_001_L3_002")
    }))

  it.scoped("keeps one cache per model", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const { cache } = yield* withCacheDir(loadTreeEnvironment(dir))
      const other = yield* countingEmbeds(
        loadTreeEnvironment(dir).pipe(
          Effect.provide(HashingEmbedder.layer({ dimensions: 64 })),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["VTREE_CACHE_DIR", cache]])))
        )
      )
      assert.strictEqual(other.embedCalls, 1)
      assert.strictEqual(cacheFiles(cache).length, 2)
    }))
})

layer(NodeContext.layer)("degraded embeddings", (it) => {
  it.scoped("embeds a tree in batches of 64 texts", () =>
    Effect.gen(function*() {
      const dir = join(yield* scopedTempDir("tree"), "VID")
      makeTree(dir, { framesPerEvent: 40 })
      const embedder = countingEmbedder()
      yield* withCacheDir(loadTreeEnvironment(dir).pipe(Effect.provide(embedder.layer)))
      assert.isAbove(embedder.batches.length, 2)
      assert.isTrue(embedder.batches.every((size) => size <= 64))
      assert.deepStrictEqual(embedder.batches.slice(0, -1), embedder.batches.slice(0, -1).map(() => 64))
    }))

  it.scoped("a tree whose embedding never answers loads, and its searches fall back to keywords", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const embedder = countingEmbedder({ never: () => true })
      const fiber = yield* withCacheDir(loadTreeEnvironment(dir).pipe(Effect.provide(embedder.layer))).pipe(
        Effect.fork
      )
      yield* embedder.hung.await
      yield* TestClock.adjust(Duration.minutes(10))
      const { value: env } = yield* Fiber.join(fiber)
      const failed = yield* Effect.flip(env.search("zeppelin"))
      assert.strictEqual(failed.reason, "Timeout")
      const found = yield* searchOrKeywords(env, "zeppelin", 3)
      assert.strictEqual(found.hits[0]!.nodeId, "VID_L1_001_L2_001_L3_002")
      assert.include(found.fallback ?? "", "tree embeddings")
    }))

  it.scoped("a query embedding that never answers falls back to keywords for that search", () =>
    Effect.gen(function*() {
      const { dir } = yield* tempTree()
      const embedder = countingEmbedder({ never: (texts) => texts.length === 1 && texts[0] === "zeppelin" })
      const { value: env } = yield* withCacheDir(loadTreeEnvironment(dir).pipe(Effect.provide(embedder.layer)))
      const fiber = yield* Effect.fork(searchOrKeywords(env, "zeppelin", 3))
      yield* embedder.hung.await
      yield* TestClock.adjust(Duration.minutes(2))
      const found = yield* Fiber.join(fiber)
      assert.strictEqual(found.hits[0]!.nodeId, "VID_L1_001_L2_001_L3_002")
      assert.include(found.fallback ?? "", "no reply within")
      // The next query is semantic again.
      const next = yield* searchOrKeywords(env, "harbour", 3)
      assert.isNull(next.fallback)
    }))
})
