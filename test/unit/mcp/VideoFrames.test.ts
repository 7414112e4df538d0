import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import jpeg from "jpeg-js"
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { maxFramesPerCall } from "../../../src/programs/mcp/FrameTool.js"
import { makeVideoLibrary, pageSizes } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../../src/programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { Thumbnailer } from "../../../src/services/Thumbnailer.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { type CallResult, type Era, eras, protocolError, sdkClient } from "../../support/mcp/SdkClient.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

type TreeJson = { nodes: Record<string, Record<string, unknown>> }

const noModels = Layer.mergeAll(
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no LLM in this test") })),
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => Effect.dieMessage("no VLM in this test") })),
  Layer.succeed(Thumbnailer, Thumbnailer.of({ thumbnail: () => Effect.dieMessage("no frame here needs scaling") }))
)

const smallJpeg = Buffer.from(
  jpeg.encode({ width: 16, height: 9, data: Buffer.alloc(16 * 9 * 4, 128) }, 80).data
)

/**
 * A trees folder with one tree as `vtree build` makes it by default: 10 frames an event, each a real JPEG,
 * and a secret JPEG beside the trees folder. `edit` changes tree.json before it is written.
 */
const treesFolder = (edit: (tree: TreeJson) => void = () => {}) =>
  Effect.gen(function*() {
    const root = yield* scopedTempDir("mcp-frames")
    const trees = join(root, "trees")
    const tree = syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 2, framesPerEvent: 10 }) as TreeJson
    edit(tree)
    writeTree(join(trees, "VID"), tree, { frames: false })
    mkdirSync(join(trees, "VID", "frames"))
    for (const id of Object.keys(tree.nodes).filter((id) => id.includes("_L3_"))) {
      if (!id.includes("..")) writeFileSync(join(trees, "VID", "frames", `${id.slice("VID_".length)}.jpg`), smallJpeg)
    }
    mkdirSync(join(root, "secret"))
    writeFileSync(join(root, "secret", "photo.jpg"), smallJpeg)
    return trees
  }).pipe(Effect.provide(NodeContext.layer))

const serve = (trees: string, era: Era = "2025-11-25") =>
  Effect.gen(function*() {
    const library = yield* makeVideoLibrary(trees)
    const client = yield* sdkClient({
      name: "vtree",
      version: "0",
      tools: makeVideoTools({ library, prompts: testPrompts(), summarize: false }),
      resources: makeVideoResources(library)
    }, era).pipe(Effect.provide(noModels))
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallResult>)
    return { client, call }
  }).pipe(Effect.provide(NodeContext.layer))

const frame = (event: number, n: number) => `VID_L1_000_L2_00${event}_L3_${String(n).padStart(3, "0")}`

describe("video_frames: an event stands for its frames, evenly sampled to the cap", () => {
  it.scoped("an event of a default build (10 frames) gives 8 frames, first and last included, evenly spread", () =>
    Effect.gen(function*() {
      const { call } = yield* serve(yield* treesFolder())
      const reply = yield* call("video_frames", { node_ids: ["VID_L1_000_L2_000"] })
      assert.isNotTrue(reply.isError)
      assert.strictEqual(maxFramesPerCall, 8)
      assert.deepStrictEqual(
        reply.structuredContent!.frames.map((f: { node_id: string }) => f.node_id),
        [0, 1, 3, 4, 5, 6, 8, 9].map((n) => frame(0, n))
      )
      assert.strictEqual(reply.content.filter((item) => item.type === "image").length, 8)
    }))

  it.scoped("the cap is stated in the tool's input schema and description; two events are still more than 8", () =>
    Effect.gen(function*() {
      const { call, client } = yield* serve(yield* treesFolder())
      const { tools } = yield* Effect.promise(() => client.listTools())
      const tool = tools.find((t) => t.name === "video_frames")!
      assert.include(tool.description, "evenly sampled to 8")
      const nodeIds = (tool.inputSchema.properties as Record<string, { description?: string }>)["node_ids"]!
      assert.include(nodeIds.description, "at most 8 frames a call")
      const both = yield* call("video_frames", { node_ids: ["VID_L1_000_L2_000", "VID_L1_000_L2_001"] })
      assert.isTrue(both.isError)
      assert.include(both.content[0]!.text, "TOO_MANY_FRAMES: 16 frames asked for; at most 8")
    }))
})

describe("video_frames for a host that drops images", () => {
  it.scoped("each image comes after a text naming its node, time and card, and before a vtree://frame link that reads the same JPEG", () =>
    Effect.gen(function*() {
      const { call, client } = yield* serve(
        yield* treesFolder((tree) => {
          tree.nodes[frame(1, 2)]!["card"] = { frame_summary: "a zeppelin over the harbour", visible_text: ["GATE 4"] }
        })
      )
      const reply = yield* call("video_frames", { node_ids: [frame(1, 2), frame(1, 3)] })
      assert.isNotTrue(reply.isError)
      assert.deepStrictEqual(reply.content.map((item) => item.type), [
        "text",
        "image",
        "resource_link",
        "text",
        "image",
        "resource_link"
      ])
      const [text, image, link] = reply.content as ReadonlyArray<Record<string, string>>
      assert.match(text!.text!, new RegExp(`^${frame(1, 2)} at 0:0\\d:\\d\\d(\\.\\d)?\\n`))
      assert.include(text!.text, "a zeppelin over the harbour")
      assert.include(text!.text, "GATE 4")
      assert.deepStrictEqual({ ...link }, {
        type: "resource_link",
        uri: `vtree://frame/${frame(1, 2)}`,
        name: frame(1, 2),
        mimeType: "image/jpeg",
        description: text!.text!.split("\n")[0]!
      })
      const read = yield* Effect.promise(() => client.readResource({ uri: link!.uri! }))
      assert.deepStrictEqual(read.contents, [{ uri: link!.uri!, mimeType: "image/jpeg", blob: image!.data! }])
    }))
})

describe.each(eras)("video_frames and vtree://frame refuse a frame that leaves the tree (%s client)", (era) => {
  // A node id like VID_../../secret/photo no longer decodes (issue #39): what is left is a link out of the folder.
  const hostile = frame(0, 0)
  const withLinkOut = (trees: string) => {
    const file = join(trees, "VID", "frames", `${hostile.slice("VID_".length)}.jpg`)
    rmSync(file)
    symlinkSync(join(trees, "..", "secret", "photo.jpg"), file)
    return trees
  }

  it.scoped("video_frames sends no bytes of the file outside, and says why", () =>
    Effect.gen(function*() {
      const { call } = yield* serve(withLinkOut(yield* treesFolder()), era)
      const reply = yield* call("video_frames", { node_ids: [hostile] })
      assert.isTrue(reply.isError)
      assert.isEmpty(reply.content.filter((item) => item.type === "image"))
      assert.include(reply.content[0]!.text, "outside the tree's folder")
      // Sampled with its event, the hostile frame is refused and the others are sent.
      const event = yield* call("video_frames", { node_ids: ["VID_L1_000_L2_000"] })
      assert.strictEqual(event.content.filter((item) => item.type === "image").length, 7)
      assert.notInclude(event.structuredContent!.frames.map((f: { node_id: string }) => f.node_id), hostile)
    }))

  it.scoped("vtree://frame/<id of a link out> is an error, not the file", () =>
    Effect.gen(function*() {
      const { client } = yield* serve(withLinkOut(yield* treesFolder()), era)
      const error = yield* Effect.promise(() =>
        client.readResource({ uri: `vtree://frame/${encodeURIComponent(hostile)}` }).then(
          () => undefined,
          (error: unknown) => error
        )
      )
      assert.isDefined(protocolError(error))
      assert.include(protocolError(error)!.message, "outside the tree's folder")
    }))

  it.scoped("a tree with a node id that climbs out (VID_../../secret/photo) is not served at all", () =>
    Effect.gen(function*() {
      const escaping = "VID_../../secret/photo"
      const { call } = yield* serve(
        yield* treesFolder((tree) => {
          tree.nodes[escaping] = { ...tree.nodes[hostile]!, id: escaping }
          delete tree.nodes[hostile]
          ;(tree.nodes["VID_L1_000_L2_000"]!["children_ids"] as Array<string>).splice(0, 1, escaping)
        }),
        era
      )
      const reply = yield* call("video_frames", { node_ids: [escaping] })
      assert.isTrue(reply.isError)
      assert.isEmpty(reply.content.filter((item) => item.type === "image"))
      assert.include(reply.content[0]!.text, "contains a path separator — node ids are plain names")
    }))
})

describe.each(eras)("a server over many trees holds at most the library's capacity (%s client)", (era) => {
  it.scoped("video_list over 5 trees with room for 2 lists all 5 and keeps 2 loaded", () =>
    Effect.gen(function*() {
      const trees = yield* scopedTempDir("mcp-many")
      const ids = ["V0", "V1", "V2", "V3", "V4"]
      for (const id of ids) {
        writeTree(join(trees, id), syntheticTree({ videoId: id, scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }))
      }
      const library = yield* makeVideoLibrary(trees, { capacity: 2 })
      const [videoList] = makeVideoTools({ library, prompts: testPrompts(), summarize: false })
      const reply = yield* videoList!.call({}, { progress: () => Effect.void }).pipe(Effect.provide(noModels))
      const videos = reply.structuredContent!["videos"] as ReadonlyArray<{ video_id: string }>
      assert.deepStrictEqual(videos.map((v) => v.video_id), ids)
      assert.strictEqual(yield* library.loaded, 2)
      const again = yield* Effect.either(library.treeOfNode("V0_L1_000"))
      assert.isTrue(again._tag === "Right")
      assert.strictEqual(yield* library.loaded, 2)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("video_list and resources/list page with a cursor; video_list opens only the trees of its page", () =>
    Effect.gen(function*() {
      const trees = yield* scopedTempDir("mcp-paged")
      const count = pageSizes.resources + 5
      const ids = Array.from({ length: count }, (_, i) => `V${String(i).padStart(3, "0")}`)
      for (const id of ids) {
        writeTree(join(trees, id), syntheticTree({ videoId: id, scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }))
      }
      // A tree past the first page that does not load: only the page that lists it may read it.
      const broken = ids[pageSizes.videoList + 1]!
      writeFileSync(join(trees, broken, "tree.json"), "{ not json")
      const library = yield* makeVideoLibrary(trees, { capacity: 2 })
      const [videoList] = makeVideoTools({ library, prompts: testPrompts(), summarize: false })
      const list = (args: unknown) =>
        Effect.map(
          videoList!.call(args, { progress: () => Effect.void }).pipe(Effect.provide(noModels)),
          (reply) =>
            reply.structuredContent as {
              videos: Array<{ video_id: string }>
              unreadable: Array<{ video_id: string }>
              next_cursor: string | null
              total: number
            }
        )
      const first = yield* list({})
      assert.deepStrictEqual(first.videos.map((v) => v.video_id), ids.slice(0, pageSizes.videoList))
      assert.deepStrictEqual(first.unreadable, [])
      assert.strictEqual(first.total, count)
      assert.isString(first.next_cursor)
      assert.isAtMost(yield* library.loaded, 2)
      const second = yield* list({ cursor: first.next_cursor })
      assert.deepStrictEqual(second.unreadable.map((v) => v.video_id), [broken])
      assert.strictEqual(second.videos[0]!.video_id, ids[pageSizes.videoList])
      let cursor = second.next_cursor
      const seen = [...first.videos, ...second.videos, ...second.unreadable].map((v) => v.video_id)
      for (let page = 0; cursor !== null && page < count; page++) {
        const next = yield* list({ cursor })
        for (const video of next.videos) seen.push(video.video_id)
        cursor = next.next_cursor
      }
      assert.deepStrictEqual(seen.sort(), ids)
      const bad = yield* videoList!.call({ cursor: "-1" }, { progress: () => Effect.void }).pipe(
        Effect.provide(noModels)
      )
      assert.isTrue(bad.isError)

      const client = yield* sdkClient({
        name: "vtree",
        version: "0",
        tools: [],
        resources: makeVideoResources(library)
      }, era).pipe(Effect.provide(noModels))
      const page = yield* Effect.promise(() => client.listResources())
      assert.strictEqual(page.resources.length, pageSizes.resources)
      assert.isString(page.nextCursor)
      const rest = yield* Effect.promise(() => client.listResources({ cursor: page.nextCursor! }))
      assert.deepStrictEqual(rest.resources.map((r) => r.name), ids.slice(pageSizes.resources))
      assert.isUndefined(rest.nextCursor)
      const refused = yield* Effect.promise(() =>
        client.listResources({ cursor: "nope" }).then(() => undefined, (error: unknown) => error)
      )
      assert.isDefined(protocolError(refused))
      assert.strictEqual(protocolError(refused)!.code, -32602)
    }).pipe(Effect.provide(NodeContext.layer)))
})
