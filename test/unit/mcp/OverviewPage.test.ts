import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { jsonReply } from "../../../src/programs/mcp/McpTool.js"
import { overviewMaxChars, type OverviewOutput, overviewPage } from "../../../src/programs/mcp/OverviewPage.js"
import { resultLimits } from "../../../src/programs/mcp/ResultCaps.js"
import { readTreeIndex } from "../../../src/programs/tree/TreeLoader.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

// Video ids as YouTube's (11 characters); a build at the defaults makes about 12 scenes and 180 events an hour.
const videoId = "dQw4w9WgXcQ"
const treeOf = (hours: number) =>
  Effect.gen(function*() {
    const dir = join(yield* scopedTempDir("overview"), videoId)
    const tree = syntheticTree({
      videoId,
      scenes: 15 * hours,
      eventsPerScene: 12,
      framesPerEvent: 1,
      sceneSeconds: 240
    })
    ;(tree as Record<string, unknown>)["entities"] = Array.from({ length: 20 }, (_, i) => ({
      id: `E${i}`,
      name: `person ${i}`,
      appearance: "a tall person in a red coat with a black umbrella",
      first_seen: i * 60
    }))
    writeTree(dir, tree, { frames: false })
    return (yield* readTreeIndex(dir)).index
  }).pipe(Effect.provide(NodeContext.layer), Effect.orDie)

/** What a host counts: the reply's text, which is its structured content as JSON. */
const textChars = (page: OverviewOutput) => (jsonReply(page).content[0] as { text: string }).text.length

describe("video_overview pages", () => {
  it.scoped("the outline of a 2-hour tree is one page, over the 50,000-character default but within what the tool declares", () =>
    Effect.gen(function*() {
      const index = yield* treeOf(2)
      const page = overviewPage(videoId, index, undefined)!
      assert.strictEqual(page.next_cursor, null)
      assert.isFalse(page.truncated)
      assert.strictEqual(page.scenes.length, 30)
      assert.strictEqual(page.scenes.flatMap((scene) => scene.events).length, 360)
      assert.strictEqual(page.entities.length, 20)
      assert.isAbove(textChars(page), resultLimits.maxTextChars)
      assert.isAtMost(textChars(page), overviewMaxChars)
    }))

  it.scoped("a longer tree continues from next_cursor: each page within the limit, every scene and event once and in order", () =>
    Effect.gen(function*() {
      const index = yield* treeOf(6)
      const pages: Array<OverviewOutput> = []
      let cursor: string | undefined
      do {
        const page = overviewPage(videoId, index, cursor)!
        pages.push(page)
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined && pages.length < 20)
      assert.isAbove(pages.length, 2)
      assert.isBelow(pages.length, 20)
      for (const page of pages) assert.isAtMost(textChars(page), overviewMaxChars)
      for (const page of pages.slice(0, -1)) assert.isTrue(page.truncated)
      // The registry is on the first page only.
      assert.deepStrictEqual(pages.map((page) => page.entities.length > 0), pages.map((_, i) => i === 0))
      const events = pages.flatMap((page) => page.scenes.flatMap((scene) => scene.events.map((event) => event.node_id)))
      const all = index.rootIds.flatMap((id) => index.nodes.get(id)!.childrenIds)
      assert.deepStrictEqual(events, all)
      // A scene split across pages is repeated; none is left out.
      const scenes = [...new Set(pages.flatMap((page) => page.scenes.map((scene) => scene.node_id)))]
      assert.deepStrictEqual(scenes, [...index.rootIds])
    }))

  it.scoped("a page of a small budget still moves on, and a cursor it did not give is refused", () =>
    Effect.gen(function*() {
      const index = yield* treeOf(1)
      const first = overviewPage(videoId, index, undefined, 3_000)!
      assert.isAbove(first.scenes.length, 0)
      const second = overviewPage(videoId, index, first.next_cursor!, 3_000)!
      assert.notDeepEqual(second.scenes[0]!.events[0], first.scenes.at(-1)!.events.at(-1))
      for (const cursor of ["", "x", "1", "-1.0", "01.0", "99.0", "0.99", "0.0.0"]) {
        assert.isUndefined(overviewPage(videoId, index, cursor), cursor)
      }
    }))
})
