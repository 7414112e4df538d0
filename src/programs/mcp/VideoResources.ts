import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either } from "effect"
import type { Thumbnailer } from "../../services/Thumbnailer.js"
import { resolveFramePath } from "../tree/FramePath.js"
import { frameJpeg, maxFrameSide } from "./FrameTool.js"
import { type ResourceCatalog, type ResourceContents, ResourceNotFound } from "./McpTool.js"
import { appPrefix, framePrefix, idAfter, treePrefix, treeUri } from "./ResourceUris.js"
import { capResourceText } from "./ResultCaps.js"
import { appMimeType, appResourceMeta, treeAppPage, viewerPage, viewerUri } from "./TreeApp.js"
import { pageOf, pageSizes, type VideoLibrary } from "./VideoLibrary.js"

const notFound = (uri: string, message: string) => new ResourceNotFound({ reason: "UnknownUri", uri, message })

/**
 * `vtree://tree/<video_id>`: the video's tree.json, cut like a tool result's text; a cut adds a
 * text/plain part saying how much and where to read the rest.
 */
const readTree = (library: VideoLibrary, uri: string, videoId: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const tree = yield* Effect.mapError(library.tree(videoId), (error) => notFound(uri, error.message))
    const text = yield* fs.readFileString(path.join(tree.dir, "tree.json")).pipe(
      Effect.mapError(() => notFound(uri, `${videoId}: tree.json is unreadable`))
    )
    const capped = capResourceText(text, "read the tree a part at a time with video_overview and video_view_node")
    const contents: ReadonlyArray<ResourceContents> = [
      { uri, mimeType: "application/json", text: capped.text },
      ...(capped.note === undefined ? [] : [{ uri, mimeType: "text/plain", text: capped.note }])
    ]
    return contents
  })

/** `vtree://frame/<node_id>`: a frame (L3) node's JPEG, through the one frame-path resolver. */
const readFrame = (library: VideoLibrary, uri: string, nodeId: string) =>
  Effect.gen(function*() {
    const { node, tree } = yield* Effect.mapError(library.treeOfNode(nodeId), (error) => notFound(uri, error.message))
    if (node.level !== 3) return yield* notFound(uri, `${nodeId} is not a frame (L3) node`)
    const file = yield* resolveFramePath(tree.dir, tree.index, node).pipe(
      Effect.mapError((error) => new ResourceNotFound({ reason: "Unreadable", uri, message: error.message }))
    )
    const jpeg = yield* frameJpeg(file)
    if (Either.isLeft(jpeg)) {
      const problem = jpeg.left
      return yield* problem._tag === "Missing"
        ? notFound(uri, `${nodeId}: the frame file is missing`)
        : new ResourceNotFound({
          reason: "Unreadable",
          uri,
          message: problem._tag === "NotJpeg"
            ? `${nodeId}: not a JPEG frame (scaled to at most ${maxFrameSide} px when served)`
            : problem.message
        })
    }
    const contents: ReadonlyArray<ResourceContents> = [
      { uri, mimeType: "image/jpeg", blob: Buffer.from(jpeg.right).toString("base64") }
    ]
    return contents
  })

/** An MCP App page, its CSP and border with it. */
const appContents = (uri: string, html: string): ReadonlyArray<ResourceContents> => [
  { uri, mimeType: appMimeType, text: html, _meta: appResourceMeta }
]

/** `ui://vtree/tree/<video_id>`: the video's tree page as an MCP App. */
const readApp = (library: VideoLibrary, uri: string, videoId: string) =>
  Effect.gen(function*() {
    const tree = yield* Effect.mapError(library.tree(videoId), (error) => notFound(uri, error.message))
    return appContents(uri, yield* treeAppPage(tree))
  })

const templates = [
  {
    uriTemplate: `${treePrefix}{video_id}`,
    name: "tree",
    description: "A video's tree.json",
    mimeType: "application/json"
  },
  {
    uriTemplate: `${framePrefix}{node_id}`,
    name: "frame",
    description: "A frame (L3) node's image",
    mimeType: "image/jpeg"
  },
  {
    uriTemplate: `${appPrefix}{video_id}`,
    name: "tree-app",
    description: "A video's tree page (timeline, cards, frames, search) as an MCP App",
    mimeType: appMimeType
  }
]

/**
 * Trees and frames as MCP resources: `vtree://tree/<video_id>` is the video's tree.json,
 * `vtree://frame/<node_id>` a frame's JPEG, and `ui://vtree/tree/<video_id>` its tree page as an MCP App
 * (`ui://vtree/tree` the viewer video_overview names). Trees are listed a page at a time; frames and pages
 * are templates (MCP Apps lets a server leave its pages out of resources/list).
 */
export const makeVideoResources = (
  library: VideoLibrary
): ResourceCatalog<FileSystem.FileSystem | Path.Path | Thumbnailer> => ({
  list: (cursor) => {
    // Ids only: listing reads no tree.
    const paged = pageOf(library.videoIds, cursor, pageSizes.resources)
    if (paged === undefined) {
      return Effect.fail(
        new ResourceNotFound({
          reason: "BadCursor",
          uri: "",
          message: "resources/list: the cursor is not a nextCursor this server gave — list again without it"
        })
      )
    }
    return Effect.succeed({
      resources: paged.page.map((videoId) => ({
        uri: treeUri(videoId),
        name: videoId,
        title: `Video tree ${videoId}`,
        mimeType: "application/json"
      })),
      ...(paged.next === null ? {} : { nextCursor: paged.next })
    })
  },
  templates,
  read: (uri) => {
    if (uri.startsWith(treePrefix)) return readTree(library, uri, idAfter(uri, treePrefix))
    if (uri.startsWith(framePrefix)) return readFrame(library, uri, idAfter(uri, framePrefix))
    if (uri === viewerUri) return Effect.succeed(appContents(uri, viewerPage()))
    if (uri.startsWith(appPrefix)) return readApp(library, uri, idAfter(uri, appPrefix))
    return Effect.fail(
      notFound(
        uri,
        `unknown resource — vtree serves ${treePrefix}<video_id>, ${framePrefix}<node_id> and ${appPrefix}<video_id>`
      )
    )
  }
})
