import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Array as Arr, Duration, Effect, Either, Option } from "effect"
import { createHash } from "node:crypto"
import { loadCacheDir } from "../../config/CacheConfig.js"
import { idFromName } from "../../domain/NameId.js"
import { ProviderError } from "../../domain/ProviderError.js"
import { TreeDecodeError } from "../../domain/Tree.js"
import { FrameSelectionError, NodeNotFound, type TreeIndex, type TreeNode } from "../../domain/TreeIndex.js"
import { readUserFileAtOnce, userFileCaps } from "../../domain/UserFile.js"
import { EmbeddingProvider } from "../../services/EmbeddingProvider.js"
import { countOf } from "../../text/Format.js"
import {
  cacheFileName,
  decodeCache,
  type EmbeddingMatrix,
  encodeCache,
  hashTexts,
  packVectors
} from "./EmbeddingIndex.js"
import { resolveFramePath } from "./FramePath.js"
import { selectFrameNodes } from "./FrameSelection.js"
import * as NodeText from "./NodeText.js"
import { buildRetrieval, defaultK, type RetrievalIndex, searchBm25, searchHybrid } from "./Retrieval.js"
import { decodeTreeBytes } from "./TreeDecoder.js"
import type { TreeEnvironment } from "./TreeEnvironment.js"

/** A tree directory, or the path of its tree.json (the directory is then the file's folder). */
export const resolveTreePaths = (path: Path.Path, input: string): { readonly dir: string; readonly file: string } =>
  input.toLowerCase().endsWith(".json")
    ? { dir: path.dirname(path.resolve(input)), file: input }
    : { dir: path.resolve(input), file: path.join(input, "tree.json") }

/**
 * Where a video's tree may be: `<trees>/<videoID>`, and, when the videoID is not already an id, the
 * folder `vtree build` names that video by (`my video` → `my-video~1a2b3c4d`, domain/NameId.ts), so a
 * question file's own videoIDs find the trees built from its videos.
 */
const treeFolders = (path: Path.Path, treesDir: string, videoId: string): readonly [string, ...Array<string>] => {
  const made = idFromName(videoId)
  const plain = path.join(treesDir, videoId)
  return "id" in made && made.id !== videoId ? [plain, path.join(treesDir, made.id)] : [plain]
}

/** The first of a video's folders that holds tree.json; none when no folder does. */
export const findTreeFolder = Effect.fn("TreeLoader.findTreeFolder")(function*(treesDir: string, videoId: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  for (const dir of treeFolders(path, treesDir, videoId)) {
    if (yield* fs.exists(path.join(dir, "tree.json")).pipe(Effect.orElseSucceed(() => false))) return Option.some(dir)
  }
  return Option.none<string>()
})

/** The folder to read a video's tree from: the one found, else the plain one, so "not found" names it. */
export const treeFolderOf = Effect.fn("TreeLoader.treeFolderOf")(function*(treesDir: string, videoId: string) {
  const path = yield* Path.Path
  const [plain, ...others] = treeFolders(path, treesDir, videoId)
  // One candidate: reading it tells all that a lookup would.
  if (others.length === 0) return plain
  return Option.getOrElse(yield* findTreeFolder(treesDir, videoId), () => plain)
})

/**
 * When `treesDir` is one video's tree folder (it holds tree.json) rather than the folder of trees, the
 * hint naming its parent; none otherwise.
 */
export const treesFolderHint = Effect.fn("TreeLoader.treesFolderHint")(function*(treesDir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const isTree = yield* fs.exists(path.join(treesDir, "tree.json")).pipe(Effect.orElseSucceed(() => false))
  if (!isTree) return Option.none<string>()
  // The parent as the user would type it: relative when they gave a relative path (`.` has `..`).
  const parent = path.dirname(path.resolve(treesDir))
  const shown = path.isAbsolute(treesDir) ? parent : path.relative(path.resolve("."), parent) || "."
  return Option.some(
    `${treesDir} is one video's tree (it holds tree.json), not the folder of trees: did you mean --trees ${shown}?`
  )
})

/** The trees inside `dir` (subfolders holding tree.json), in name order, for "pass one of them" hints. */
const treesInside = (fs: FileSystem.FileSystem, path: Path.Path, dir: string) =>
  fs.readDirectory(dir).pipe(
    Effect.flatMap((names) =>
      Effect.filter(
        [...names].sort(),
        (name) => fs.exists(path.join(dir, name, "tree.json")),
        { concurrency: 16 }
      )
    ),
    Effect.orElseSucceed((): ReadonlyArray<string> => [])
  )

/** Resumes after the event loop has gone round once (setImmediate): what is due on it runs first. */
const eventLoopTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** Reads and decodes tree.json; nothing is indexed. */
export const readTreeIndex = Effect.fn("TreeLoader.readTreeIndex")(function*(input: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const { dir, file } = resolveTreePaths(path, input)
  const isJson = input.toLowerCase().endsWith(".json")
  // The hints look at the disk only once the read has failed: a run reads hundreds of trees that are there.
  const bytes = yield* readUserFileAtOnce(file, userFileCaps.tree).pipe(
    Effect.catchAll((error) =>
      Effect.gen(function*() {
        // A video given where its tree was meant (`tree validate VIDEO.mp4`): the read fails with ENOTDIR.
        const isFile = !isJson &&
          (yield* fs.stat(input).pipe(Effect.map((info) => info.type === "File"), Effect.orElseSucceed(() => false)))
        if (isFile) {
          return yield* TreeDecodeError.at(
            input,
            "",
            "a file, not a tree folder",
            `did you mean \`vtree build ${input}\`? tree commands read a tree folder (holding tree.json) or its tree.json`,
            "NotFound"
          )
        }
        if (error.reason !== "NotFound") {
          return yield* TreeDecodeError.at(
            file,
            "",
            error.detail.split(" — ")[0]!,
            error.detail.split(" — ")[1] ?? "check the path and its permissions",
            "Unreadable"
          )
        }
        // A folder of trees given where one tree was meant: name the trees it holds.
        const inside = isJson ? [] : yield* treesInside(fs, path, input)
        return yield* TreeDecodeError.at(
          file,
          "",
          "not found",
          inside.length > 0
            ? `${input} is a folder of ${countOf(inside.length, "tree")}: did you mean ${path.join(input, inside[0]!)}?`
            : "pass a tree directory holding tree.json, or the tree.json file itself",
          "NotFound"
        )
      })
    )
  )
  // Read at once, decoded at once: between the two, one turn of the event loop. A busy run's timers and replies
  // go first instead of waiting on the decode too, and V8 gets a turn for its collector, which a CPU-bound run
  // loading trees back to back otherwise rarely gives it (a 2,700-question run peaked 60-100 MB higher without).
  yield* eventLoopTurn
  // infer finds a video's tree as <trees>/<videoID>/tree.json: a tree filed under another name would
  // answer questions about the wrong video, so the folder must be the videoID everywhere.
  const decoded = decodeTreeBytes(file, bytes, { folder: path.basename(dir) })
  const index = yield* Either.match(decoded, { onLeft: Effect.fail, onRight: Effect.succeed })
  return { dir, file, index }
})

const embeddingInput = (index: RetrievalIndex): ReadonlyArray<string> =>
  // Embedding endpoints reject empty inputs; a card-less node is still findable by its id.
  index.chunkTexts.map((text, chunk) => (text.trim() === "" ? index.nodeIds[index.chunkNode[chunk]!]! : text))

const badResponse = (model: string, message: string) =>
  new ProviderError({ provider: `embedding:${model}`, reason: "BadResponse", message })

/** Texts per embedding call of a tree: a long tree is many calls, each within its timeout, with progress between. */
export const treeEmbedBatch = 64
/**
 * How long one embedding call may take here, whatever the endpoint's own timeout and retries: past it a
 * tree's searches (or one query's) use keywords. A query is one short text; a batch is 64.
 */
export const queryEmbedTimeout = Duration.seconds(30)
export const batchEmbedTimeout = Duration.minutes(2)

const timedOut = (model: string, duration: Duration.Duration, what: string) => () =>
  new ProviderError({
    provider: `embedding:${model}`,
    reason: "Timeout",
    message: `${what}: no reply within ${Duration.format(duration)}`
  })

/**
 * The cache file of a tree's vectors under the cache folder (CacheConfig.ts): one folder per tree path,
 * so two trees of one videoID never share a file; the header names the texts, so a changed tree rebuilds.
 */
const cacheFileOf = (path: Path.Path, cacheDir: string, dir: string, model: string) => {
  const folder = `${path.basename(dir).replace(/[^A-Za-z0-9._~-]+/g, "-").slice(0, 60)}-${
    createHash("sha256").update(dir).digest("hex").slice(0, 16)
  }`
  return path.join(cacheDir, "embeddings", folder, cacheFileName(model))
}

/** Embeds a tree's texts `treeEmbedBatch` at a time, logging progress after each batch. */
const embedInBatches = Effect.fn("TreeLoader.embedInBatches")(function*(
  dir: string,
  texts: ReadonlyArray<string>,
  provider: EmbeddingProvider["Type"]
) {
  const batches = Arr.chunksOf(texts, treeEmbedBatch)
  let done = 0
  const vectors = yield* Effect.forEach(batches, (batch) =>
    provider.embed(batch).pipe(
      Effect.timeoutFail({
        duration: batchEmbedTimeout,
        onTimeout: timedOut(provider.model, batchEmbedTimeout, `a batch of ${batch.length} texts`)
      }),
      Effect.filterOrFail(
        (reply) => reply.length === batch.length,
        (reply) => badResponse(provider.model, `asked for ${batch.length} embeddings, got ${reply.length}`)
      ),
      Effect.tap(() => {
        done += batch.length
        return batches.length > 1 ? Effect.logInfo(`${dir}: embedded ${done} of ${texts.length} texts`) : Effect.void
      })
    ), { concurrency: 4 })
  return vectors.flat()
})

/**
 * Chunk vectors from the cache folder (or a cache an older vtree left in `<tree>/.vtree/`, read only), or
 * from the provider when the cache is missing, for another model or other texts, truncated or corrupt.
 * Nothing is written into the tree: a read-only trees folder works. Writing is atomic (temp file +
 * rename) and best effort.
 */
const loadEmbeddings = Effect.fn("TreeLoader.loadEmbeddings")(function*(
  dir: string,
  index: RetrievalIndex,
  provider: EmbeddingProvider["Type"]
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const texts = embeddingInput(index)
  const expected = { model: provider.model, textHash: hashTexts(texts), count: texts.length }
  const cacheFile = cacheFileOf(path, yield* loadCacheDir, path.resolve(dir), provider.model)
  const readCache = (file: string) =>
    fs.readFile(file).pipe(Effect.map((bytes) => decodeCache(bytes, expected)), Effect.orElseSucceed(() => undefined))
  const cached = (yield* readCache(cacheFile)) ??
    (yield* readCache(path.join(dir, ".vtree", cacheFileName(provider.model))))
  if (cached !== undefined) {
    yield* Effect.logDebug(`embedding cache hit for ${dir}`)
    return cached
  }
  const vectors = yield* embedInBatches(dir, texts, provider)
  const matrix = packVectors(vectors)
  if (matrix === undefined || matrix.dimensions === 0) {
    return yield* badResponse(provider.model, "embeddings of differing or zero length in one reply")
  }
  const temp = `${cacheFile}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`
  yield* fs.makeDirectory(path.dirname(cacheFile), { recursive: true }).pipe(
    Effect.zipRight(fs.writeFile(temp, encodeCache({ ...expected, dimensions: matrix.dimensions }, matrix))),
    Effect.zipRight(fs.rename(temp, cacheFile)),
    Effect.catchAll((error) =>
      fs.remove(temp).pipe(
        Effect.ignore,
        Effect.zipRight(
          Effect.logWarning(`embedding cache not written (${error.message}); the tree still works, uncached`)
        )
      )
    )
  )
  return matrix
})

/** A tree's embeddings: ready, failed to load (its searches then use keywords), or none configured. */
type Semantic =
  | { readonly matrix: EmbeddingMatrix; readonly provider: EmbeddingProvider["Type"] }
  | { readonly failure: ProviderError }
  | undefined

const makeEnvironment = (
  dir: string,
  index: TreeIndex,
  retrieval: RetrievalIndex,
  embeddings: Semantic,
  fs: FileSystem.FileSystem,
  path: Path.Path
): TreeEnvironment => {
  const getNode = (id: string): Effect.Effect<TreeNode, NodeNotFound> => {
    const node = index.nodes.get(id)
    return node !== undefined
      ? Effect.succeed(node)
      : Effect.fail(
        new NodeNotFound({
          reason: "UnknownId",
          nodeId: id,
          message: `node "${id}" does not exist in ${index.videoId} — use an id shown by view_node or search_similar`
        })
      )
  }
  const withNode = <A>(f: (node: TreeNode) => A) => (id: string) => Effect.map(getNode(id), f)

  const resolveFrames = Effect.fn("TreeLoader.resolveFrames")(function*(ids: ReadonlyArray<string>) {
    const nodes = yield* Either.match(selectFrameNodes(index, ids), { onLeft: Effect.fail, onRight: Effect.succeed })
    if (index.hasFrames === false) {
      return yield* new FrameSelectionError({
        reason: "TreeWithoutFrames",
        message: "this tree has no frames (it was made from text captions, without the video) — " +
          "rely on view_node and search_similar"
      })
    }
    const paths = yield* Effect.forEach(nodes, (node) =>
      resolveFramePath(dir, index, node).pipe(
        Effect.mapError((error) => new FrameSelectionError({ reason: "OutsideTree", message: error.message })),
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provideService(Path.Path, path)
      ))
    const present = yield* Effect.forEach(paths, (file) => fs.exists(file).pipe(Effect.orElseSucceed(() => false)), {
      concurrency: 8
    })
    const missing = nodes.flatMap((node, i) => present[i] ? [] : [`${node.id} (${path.relative(dir, paths[i]!)})`])
    if (missing.length > 0) {
      return yield* new FrameSelectionError({
        reason: "MissingImage",
        message: `no frame image for ${missing.join(", ")} — ` +
          "choose other frames, or rely on the text of the node"
      })
    }
    return { nodeIds: nodes.map((node) => node.id), paths }
  })

  const keywordSearch = (query: string, k: number = defaultK) =>
    Effect.sync(() => query.trim() === "" ? [] : searchBm25(retrieval, query, Math.max(1, Math.floor(k))))

  const search = Effect.fn("TreeLoader.search")(function*(query: string, k: number = defaultK) {
    const limit = Math.max(1, Math.floor(k))
    if (query.trim() === "" || embeddings === undefined) return yield* keywordSearch(query, limit)
    if ("failure" in embeddings) return yield* embeddings.failure
    const { matrix, provider } = embeddings
    const [vector] = yield* provider.embed([query]).pipe(
      Effect.timeoutFail({
        duration: queryEmbedTimeout,
        onTimeout: timedOut(provider.model, queryEmbedTimeout, "query embedding")
      })
    )
    if (vector === undefined || vector.length !== matrix.dimensions) {
      return yield* badResponse(
        provider.model,
        `query embedding has ${vector?.length ?? 0} dimensions, the tree index ${matrix.dimensions}`
      )
    }
    return searchHybrid(retrieval, matrix, query, vector, limit)
  })

  return {
    dir,
    index,
    getNode,
    nodeText: withNode(NodeText.nodeText),
    anchoredText: withNode(NodeText.anchoredText),
    children: withNode((node) => node.childrenIds.map((id) => NodeText.childInfo(index.nodes.get(id)!))),
    entityAppendix: withNode((node) => NodeText.entityAppendix(node, index.entities)),
    subtitle: withNode((node) => node.subtitle),
    resolveFrames,
    search,
    keywordSearch
  }
}

/**
 * The environment of a decoded tree: the BM25 index and, when an EmbeddingProvider is in context, the
 * chunk embeddings (cached in the cache folder, CacheConfig.ts) for hybrid search. Embeddings that fail
 * to load leave a tree that answers by keywords (KeywordFallback.ts), not one that fails its questions.
 */
export const environmentOf = Effect.fn("TreeLoader.environmentOf")(function*(dir: string, index: TreeIndex) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const retrieval = buildRetrieval(index)
  const provider = yield* Effect.serviceOption(EmbeddingProvider)
  const embeddings: Semantic = Option.isNone(provider) ? undefined : yield* loadEmbeddings(
    dir,
    retrieval,
    provider.value
  ).pipe(
    Effect.map((matrix) => ({ matrix, provider: provider.value })),
    Effect.catchAll((error) =>
      Effect.as(
        Effect.logWarning(`${dir}: semantic search unavailable (${error.message}); its searches use keywords`),
        {
          failure: new ProviderError({
            provider: error.provider,
            reason: error.reason,
            message: `tree embeddings failed: ${error.message}`
          })
        }
      )
    )
  )
  return makeEnvironment(dir, index, retrieval, embeddings, fs, path)
})

/** Loads a tree directory once: decodes tree.json, then builds its environment (environmentOf). */
export const loadTreeEnvironment = Effect.fn("TreeLoader.loadTreeEnvironment")(function*(input: string) {
  const { dir, index } = yield* readTreeIndex(input)
  return yield* environmentOf(dir, index)
})
