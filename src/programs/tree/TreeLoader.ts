import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Option } from "effect"
import { idFromName } from "../../domain/NameId.js"
import { ProviderError } from "../../domain/ProviderError.js"
import { TreeDecodeError } from "../../domain/Tree.js"
import { FrameSelectionError, NodeNotFound, type TreeIndex, type TreeNode } from "../../domain/TreeIndex.js"
import { readUserFile, userFileCaps } from "../../domain/UserFile.js"
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

/** Reads and decodes tree.json; nothing is indexed. */
export const readTreeIndex = Effect.fn("TreeLoader.readTreeIndex")(function*(input: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const { dir, file } = resolveTreePaths(path, input)
  // A video given where its tree was meant (`tree validate VIDEO.mp4`): the read would fail with ENOTDIR.
  const isFile = !input.toLowerCase().endsWith(".json") &&
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
  // A folder of trees given where one tree was meant: name the trees it holds.
  const inside = input.toLowerCase().endsWith(".json") ? [] : yield* treesInside(fs, path, input)
  const bytes = yield* readUserFile(file, userFileCaps.tree).pipe(
    Effect.mapError((error) =>
      error.reason === "NotFound"
        ? TreeDecodeError.at(
          file,
          "",
          "not found",
          inside.length > 0
            ? `${input} is a folder of ${countOf(inside.length, "tree")}: did you mean ${path.join(input, inside[0]!)}?`
            : "pass a tree directory holding tree.json, or the tree.json file itself",
          "NotFound"
        )
        : TreeDecodeError.at(
          file,
          "",
          error.detail.split(" — ")[0]!,
          error.detail.split(" — ")[1] ?? "check the path and its permissions",
          "Unreadable"
        )
    )
  )
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

/**
 * Chunk vectors from `<tree>/.vtree/`, or from the provider when the cache is missing, for another
 * model or other texts, truncated or corrupt. Writing is atomic (temp file + rename) and best effort:
 * a read-only tree directory still loads.
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
  const cacheDir = path.join(dir, ".vtree")
  const cacheFile = path.join(cacheDir, cacheFileName(provider.model))
  const cached = yield* fs.readFile(cacheFile).pipe(
    Effect.map((bytes) => decodeCache(bytes, expected)),
    Effect.orElseSucceed(() => undefined)
  )
  if (cached !== undefined) {
    yield* Effect.logDebug(`embedding cache hit: ${cacheFile}`)
    return cached
  }
  const vectors = yield* provider.embed(texts)
  if (vectors.length !== texts.length) {
    return yield* badResponse(provider.model, `asked for ${texts.length} embeddings, got ${vectors.length}`)
  }
  const matrix = packVectors(vectors)
  if (matrix === undefined || matrix.dimensions === 0) {
    return yield* badResponse(provider.model, "embeddings of differing or zero length in one reply")
  }
  const temp = `${cacheFile}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`
  yield* fs.makeDirectory(cacheDir, { recursive: true }).pipe(
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

const makeEnvironment = (
  dir: string,
  index: TreeIndex,
  retrieval: RetrievalIndex,
  embeddings: { readonly matrix: EmbeddingMatrix; readonly provider: EmbeddingProvider["Type"] } | undefined,
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

  const search = Effect.fn("TreeLoader.search")(function*(query: string, k: number = defaultK) {
    const limit = Math.max(1, Math.floor(k))
    if (query.trim() === "") return []
    if (embeddings === undefined) return searchBm25(retrieval, query, limit)
    const [vector] = yield* embeddings.provider.embed([query])
    if (vector === undefined || vector.length !== embeddings.matrix.dimensions) {
      return yield* badResponse(
        embeddings.provider.model,
        `query embedding has ${vector?.length ?? 0} dimensions, the tree index ${embeddings.matrix.dimensions}`
      )
    }
    return searchHybrid(retrieval, embeddings.matrix, query, vector, limit)
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
    search
  }
}

/**
 * The environment of a decoded tree: the BM25 index and, when an EmbeddingProvider is in context, the
 * chunk embeddings (cached in `<tree>/.vtree/`) for hybrid search.
 */
export const environmentOf = Effect.fn("TreeLoader.environmentOf")(function*(dir: string, index: TreeIndex) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const retrieval = buildRetrieval(index)
  const provider = yield* Effect.serviceOption(EmbeddingProvider)
  const embeddings = Option.isSome(provider)
    ? { matrix: yield* loadEmbeddings(dir, retrieval, provider.value), provider: provider.value }
    : undefined
  return makeEnvironment(dir, index, retrieval, embeddings, fs, path)
})

/** Loads a tree directory once: decodes tree.json, then builds its environment (environmentOf). */
export const loadTreeEnvironment = Effect.fn("TreeLoader.loadTreeEnvironment")(function*(input: string) {
  const { dir, index } = yield* readTreeIndex(input)
  return yield* environmentOf(dir, index)
})
