import { Either, Schema } from "effect"
import { firstDecodeIssue, formatPath } from "../../domain/DecodeIssue.js"
import { maxNodeIdBytes, nodeIdProblem, plainNameProblem } from "../../domain/NameId.js"
import {
  cardSchemaByLevel,
  childTimeTolerance,
  FlatNode,
  FlatTree,
  NestedNode,
  NestedTree,
  TreeDecodeError,
  withCardDefaults
} from "../../domain/Tree.js"
import type { Level, TreeIndex, TreeNode } from "../../domain/TreeIndex.js"
import { cutTerminalText } from "../../text/TerminalText.js"
import { decodeUtf8, parseTreeJson } from "./TreeJson.js"

type JsonPath = ReadonlyArray<PropertyKey>

// Each decoder is built once: building one per node added about half again to a 20k-node decode.
const decoderAt = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (value: unknown, file: string, at: JsonPath): Either.Either<A, TreeDecodeError> =>
    Either.mapLeft(decode(value), (error) => {
      const issue = firstDecodeIssue(error, at)
      return TreeDecodeError.at(file, issue.field, lowerFirst(issue.message))
    })
}

const decodeFlatTree = decoderAt(FlatTree)
const decodeFlatNode = decoderAt(FlatNode)
const decodeNestedTree = decoderAt(NestedTree)
const decodeNestedNode = decoderAt(NestedNode)
const decodeCard: Record<
  Level,
  (value: unknown, file: string, at: JsonPath) => Either.Either<Readonly<Record<string, unknown>>, TreeDecodeError>
> = {
  1: decoderAt(cardSchemaByLevel[1]),
  2: decoderAt(cardSchemaByLevel[2]),
  3: decoderAt(cardSchemaByLevel[3])
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1)

/** A node as read from the file, before its parent is known. */
interface RawNode extends Omit<TreeNode, "parentId"> {
  /** Where the node sits in the file, for messages. */
  readonly at: JsonPath
}

// frame_path is joined to the tree's folder: an absolute path, a `..` step or a NUL would read elsewhere.
const leavesTreeDir = (framePath: string): boolean =>
  framePath.includes("\0") || /^([/\\]|[A-Za-z]:)/.test(framePath) || framePath.split(/[/\\]/).includes("..")

// An id shown in a one-line message: quoted, its control and bidi characters shown as escapes, cut when long.
const shownId = (id: string) => `"${cutTerminalText(id, 80, "…")}"`

// Plain control flow rather than Either.gen: this runs once per node, and generators cost.
const finishNode = (
  file: string,
  at: JsonPath,
  id: string,
  level: Level,
  envelope: FlatNode | NestedNode,
  childrenIds: ReadonlyArray<string>
): Either.Either<RawNode, TreeDecodeError> => {
  const idProblem = nodeIdProblem(id)
  if (idProblem !== undefined) {
    // A flat node's key is its id, shown in the message rather than in the path.
    return Either.left(TreeDecodeError.at(
      file,
      typeof at[at.length - 1] === "string" ? formatPath(at.slice(0, -1)) : formatPath([...at, "id"]),
      `node id ${shownId(id)} ${idProblem}`,
      `node ids are plain names (no / or \\, not . or .., no NUL or control character, at most ${maxNodeIdBytes} bytes) — rename the node or re-run the builder`
    ))
  }
  let timeRange: readonly [number, number]
  if (envelope.time_range !== undefined) {
    timeRange = envelope.time_range
  } else if (level === 3 && envelope.timestamp !== undefined && envelope.timestamp !== null) {
    timeRange = [envelope.timestamp, envelope.timestamp]
  } else {
    return Either.left(TreeDecodeError.at(
      file,
      formatPath([...at, "time_range"]),
      level === 3 ? "missing (an L3 node needs time_range or timestamp)" : "missing (expected [start, end] in seconds)"
    ))
  }
  const framePath = envelope.frame_path ?? null
  if (framePath !== null && leavesTreeDir(framePath)) {
    return Either.left(TreeDecodeError.at(
      file,
      formatPath([...at, "frame_path"]),
      `${JSON.stringify(framePath)} leaves the tree's folder`,
      "write a path relative to the tree's folder, without .. (e.g. frames/L1_000_L2_000_L3_000.jpg)"
    ))
  }
  const card = decodeCard[level](envelope.card ?? {}, file, [...at, "card"])
  if (Either.isLeft(card)) return Either.left(card.left)
  return Either.right({
    id,
    level,
    timeRange,
    card: withCardDefaults(level, card.right),
    subtitle: envelope.subtitle ?? "",
    childrenIds,
    framePath,
    at
  })
}

const readFlat = (file: string, json: unknown) =>
  Either.gen(function*() {
    const tree = yield* decodeFlatTree(json, file, [])
    const raw: Array<RawNode> = []
    for (const key in tree.nodes) {
      const value = tree.nodes[key]
      const at = ["nodes", key]
      const envelope = yield* decodeFlatNode(value, file, at)
      if (envelope.id !== undefined && envelope.id !== key) {
        return yield* Either.left(
          TreeDecodeError.at(file, formatPath([...at, "id"]), `"${envelope.id}" differs from its key "${key}"`)
        )
      }
      const node = finishNode(file, at, key, envelope.level, envelope, envelope.children_ids ?? [])
      if (Either.isLeft(node)) return yield* Either.left(node.left)
      raw.push(node.right)
    }
    return {
      videoId: tree.videoID,
      videoIdPath: "videoID",
      durationCategory: tree.duration_category ?? null,
      durationSeconds: tree.duration_seconds ?? null,
      domain: tree.domain ?? null,
      extras: {
        ...(tree.entities === undefined ? {} : { entities: tree.entities }),
        ...(tree.has_frames === undefined ? {} : { hasFrames: tree.has_frames })
      } as Pick<TreeIndex, "entities" | "hasFrames">,
      raw,
      childrenField: "children_ids"
    }
  })

const readNested = (file: string, json: unknown) =>
  Either.gen(function*() {
    const tree = yield* decodeNestedTree(json, file, [])
    const raw: Array<RawNode> = []
    // Depth-first with an explicit stack: a deep or wide file never overflows the call stack.
    const stack: Array<{ value: unknown; at: JsonPath; depth: number }> = tree.roots
      .map((value, i) => ({ value, at: ["roots", i] as JsonPath, depth: 1 }))
      .reverse()
    while (stack.length > 0) {
      const { at, depth, value } = stack.pop()!
      const envelope = yield* decodeNestedNode(value, file, at)
      if (depth > 3) {
        return yield* Either.left(
          TreeDecodeError.at(file, formatPath(at), "nodes nest at most three levels deep (scene, event, frame)")
        )
      }
      const level = envelope.level ?? depth
      if (level !== depth) {
        return yield* Either.left(TreeDecodeError.at(
          file,
          formatPath([...at, "level"]),
          `expected ${depth} at this depth, found ${level}`
        ))
      }
      const children = envelope.children ?? []
      const childIds: Array<string> = []
      children.forEach((child) => {
        const id = typeof child === "object" && child !== null && "id" in child
          ? (child as { id: unknown }).id
          : undefined
        if (typeof id === "string") childIds.push(id)
      })
      // Pushed last-first so they pop, and land in the index, in file order.
      for (let i = children.length - 1; i >= 0; i--) {
        stack.push({ value: children[i], at: [...at, "children", i], depth: depth + 1 })
      }
      raw.push(yield* finishNode(file, at, envelope.id, level as Level, envelope, childIds))
    }
    const metadata = tree.metadata
    const firstRoot = raw.find((node) => node.level === 1)?.id ?? ""
    const derived = firstRoot.includes("_L1_") ? firstRoot.slice(0, firstRoot.lastIndexOf("_L1_")) : ""
    const videoId = metadata.videoID ?? metadata.video_id ?? derived
    const videoIdPath = metadata.videoID !== undefined
      ? "metadata.videoID"
      : metadata.video_id !== undefined
      ? "metadata.video_id"
      : `${formatPath(raw.find((node) => node.level === 1)?.at ?? ["roots"])}.id`
    if (videoId === "") {
      return yield* Either.left(
        TreeDecodeError.at(
          file,
          "metadata.videoID",
          "missing, and no root id of the form <videoID>_L1_000 to derive it from"
        )
      )
    }
    return {
      videoId,
      videoIdPath,
      durationCategory: metadata.duration_category ?? null,
      durationSeconds: metadata.duration_seconds ?? null,
      domain: metadata.domain ?? null,
      extras: {} as Pick<TreeIndex, "entities" | "hasFrames">,
      raw,
      childrenField: "children"
    }
  })

export interface DecodeTreeOptions {
  /** The name of the folder holding tree.json: the videoID must equal it. */
  readonly folder?: string
}

/** Each node by its id; an id used twice is the error, at its second use. */
const indexById = (file: string, raw: ReadonlyArray<RawNode>): Either.Either<Map<string, RawNode>, TreeDecodeError> => {
  const byId = new Map<string, RawNode>()
  for (const node of raw) {
    const previous = byId.get(node.id)
    if (previous !== undefined) {
      return Either.left(TreeDecodeError.at(
        file,
        formatPath([...node.at, "id"]),
        `"${node.id}" is already used by ${formatPath(previous.at)}`
      ))
    }
    byId.set(node.id, node)
  }
  return Either.right(byId)
}

/**
 * Each child's parent, once every child edge is checked: the child exists, sits one level down, has no
 * other parent and lies within its parent's time range.
 */
const parentsOf = (
  file: string,
  raw: ReadonlyArray<RawNode>,
  childrenField: PropertyKey,
  byId: ReadonlyMap<string, RawNode>
): Either.Either<Map<string, string>, TreeDecodeError> => {
  const parentOf = new Map<string, string>()
  for (const node of raw) {
    for (const [i, childId] of node.childrenIds.entries()) {
      // The path is written only for an error: one string per child edge is a noticeable share of a load.
      const fail = (problem: string) =>
        Either.left(TreeDecodeError.at(file, formatPath([...node.at, childrenField, i]), problem))
      const child = byId.get(childId)
      if (child === undefined) return fail(`child "${childId}" does not exist`)
      if (child.level !== node.level + 1) {
        return fail(
          `child "${childId}" is level ${child.level}, expected ${node.level + 1} (one level below its parent)`
        )
      }
      const other = parentOf.get(childId)
      if (other !== undefined) return fail(`child "${childId}" is also listed under "${other}"`)
      if (
        child.timeRange[0] < node.timeRange[0] - childTimeTolerance ||
        child.timeRange[1] > node.timeRange[1] + childTimeTolerance
      ) {
        return fail(
          `child "${childId}" spans ${child.timeRange[0]}-${child.timeRange[1]} s, outside its parent's ` +
            `${node.timeRange[0]}-${node.timeRange[1]} s (more than the ${childTimeTolerance} s allowed for rounding)`
        )
      }
      parentOf.set(childId, node.id)
    }
  }
  return Either.right(parentOf)
}

/** The nodes with their parents, and the sorted roots; a parentless node must be L1, and there must be one. */
const linkNodes = (
  file: string,
  raw: ReadonlyArray<RawNode>,
  parentOf: ReadonlyMap<string, string>,
  nodesPath: string
): Either.Either<{ nodes: Map<string, TreeNode>; rootIds: Array<string> }, TreeDecodeError> => {
  const nodes = new Map<string, TreeNode>()
  const rootIds: Array<string> = []
  for (const node of raw) {
    const parentId = parentOf.get(node.id) ?? null
    if (parentId === null) {
      if (node.level !== 1) {
        return Either.left(TreeDecodeError.at(
          file,
          formatPath([...node.at, "level"]),
          `a level ${node.level} node must be listed as a child of a level ${node.level - 1} node`
        ))
      }
      rootIds.push(node.id)
    }
    nodes.set(node.id, {
      id: node.id,
      level: node.level,
      timeRange: node.timeRange,
      card: node.card,
      subtitle: node.subtitle,
      childrenIds: node.childrenIds,
      parentId,
      framePath: node.framePath
    })
  }
  if (rootIds.length === 0) {
    return Either.left(TreeDecodeError.at(file, nodesPath, "no level 1 node: the tree is empty"))
  }
  rootIds.sort()
  return Either.right({ nodes, rootIds })
}

/**
 * Decodes either form of tree.json into a TreeIndex and checks its structure: ids unique, children
 * exist and sit exactly one level down, every node has at most one parent, parentless nodes are L1.
 */
export const decodeTree = (
  file: string,
  json: unknown,
  options: DecodeTreeOptions = {}
): Either.Either<TreeIndex, TreeDecodeError> =>
  Either.gen(function*() {
    const isNested = typeof json === "object" && json !== null && "roots" in json && !("nodes" in json)
    const tree = isNested ? yield* readNested(file, json) : yield* readFlat(file, json)
    const videoIdProblem = plainNameProblem(tree.videoId)
    if (videoIdProblem !== undefined) {
      return yield* Either.left(TreeDecodeError.at(
        file,
        tree.videoIdPath,
        `${shownId(tree.videoId)} ${videoIdProblem}`,
        "a videoID is a plain name (it names the tree's folder) — fix it or re-run the builder"
      ))
    }
    if (options.folder !== undefined && tree.videoId !== options.folder) {
      return yield* Either.left(TreeDecodeError.at(
        file,
        tree.videoIdPath,
        `"${tree.videoId}" differs from the tree's folder "${options.folder}"`,
        `rename the folder to ${tree.videoId}, or fix the videoID (a video's tree is found as <trees>/<videoID>/tree.json)`
      ))
    }
    const byId = yield* indexById(file, tree.raw)
    const parentOf = yield* parentsOf(file, tree.raw, tree.childrenField, byId)
    const { nodes, rootIds } = yield* linkNodes(file, tree.raw, parentOf, isNested ? "roots" : "nodes")
    return {
      videoId: tree.videoId,
      durationCategory: tree.durationCategory,
      durationSeconds: tree.durationSeconds,
      domain: tree.domain,
      ...tree.extras,
      nodes,
      rootIds
    }
  })

/** Parses the text of tree.json (strictly: see TreeJson), then decodes it. */
export const decodeTreeText = (
  file: string,
  text: string,
  options: DecodeTreeOptions = {}
): Either.Either<TreeIndex, TreeDecodeError> =>
  Either.flatMap(parseTreeJson(file, text), (json) => decodeTree(file, json, options))

/** The bytes of tree.json: valid UTF-8 first, then as decodeTreeText. */
export const decodeTreeBytes = (
  file: string,
  bytes: Uint8Array,
  options: DecodeTreeOptions = {}
): Either.Either<TreeIndex, TreeDecodeError> =>
  Either.flatMap(decodeUtf8(file, bytes), (text) => decodeTreeText(file, text, options))
