// A light structural check of samples/: the full tree decoder lives with the tree work and has its own
// tests; this one guards the committed sample files against drift from DESIGN §5.1.
import { assert, describe, it } from "@effect/vitest"
import jpeg from "jpeg-js"
import { existsSync, readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { cardFieldsByLevel } from "../../../src/domain/Tree.js"

const videoId = "vtSmpl0001a"
const treeDir = NodePath.resolve(import.meta.dirname, "../../../samples/trees", videoId)

interface RawNode {
  readonly level: number
  readonly time_range: readonly [number, number]
  readonly card: Record<string, unknown>
  readonly subtitle: string
  readonly children_ids: ReadonlyArray<string>
}

const tree = JSON.parse(readFileSync(NodePath.join(treeDir, "tree.json"), "utf8")) as {
  videoID: string
  duration_category: string
  duration_seconds: number
  nodes: Record<string, RawNode>
}
const nodes = Object.entries(tree.nodes)

describe("samples/trees/vtSmpl0001a", () => {
  it("has 2 scenes, 6 events and 20 frames with nested ids", () => {
    assert.strictEqual(tree.videoID, videoId)
    const perLevel = [1, 2, 3].map((l) => nodes.filter(([, n]) => n.level === l).length)
    assert.deepStrictEqual(perLevel, [2, 6, 20])
    for (const [id, node] of nodes) {
      const pattern = [
        /^vtSmpl0001a_L1_\d{3}$/,
        /^vtSmpl0001a_L1_\d{3}_L2_\d{3}$/,
        /^vtSmpl0001a_L1_\d{3}_L2_\d{3}_L3_\d{3}$/
      ][node.level - 1]
      assert.match(id, pattern!, `${id} does not follow the nested id scheme for level ${node.level}`)
    }
  })

  it("every child exists, is one level down, carries its parent's id and lies inside its time range", () => {
    for (const [id, node] of nodes) {
      const [start, end] = node.time_range
      assert.isAtMost(start, end, `${id}: time_range ${start}-${end} runs backwards`)
      assert.isAtMost(end, tree.duration_seconds, `${id}: time_range ${start}-${end} ends after the video`)
      assert.strictEqual(node.children_ids.length === 0, node.level === 3, `${id}: only frames are leaves`)
      for (const childId of node.children_ids) {
        const child = tree.nodes[childId]
        assert.isDefined(child, `${id}: child ${childId} does not exist`)
        assert.strictEqual(child!.level, node.level + 1)
        assert.isTrue(childId.startsWith(`${id}_`))
        assert.isAtLeast(child!.time_range[0], start, `${childId} starts before ${id}`)
        assert.isAtMost(child!.time_range[1], end, `${childId} ends after ${id}`)
      }
    }
    const childIds = new Set(nodes.flatMap(([, n]) => n.children_ids))
    const roots = nodes.filter(([id]) => !childIds.has(id))
    assert.isTrue(roots.every(([, n]) => n.level === 1))
  })

  // The samples are written by scripts/make-samples.ts, not from the domain's field lists: this also pins
  // cardFieldsByLevel (which the builder's own tests compare against) to DESIGN §5.1's cards.
  it("cards carry every field of their level, in card order, and every node has a subtitle", () => {
    for (const [id, node] of nodes) {
      const fields = cardFieldsByLevel[node.level as 1 | 2 | 3]
      assert.deepStrictEqual(Object.keys(node.card), [...fields], `${id}: card fields`)
      assert.isAbove(node.subtitle.length, 0, `${id}: subtitle`)
    }
  })

  it("every frame exists on disk and is a small 160×90 JPEG", () => {
    for (const [id] of nodes.filter(([, n]) => n.level === 3)) {
      const file = NodePath.join(treeDir, "frames", `${id.slice(videoId.length + 1)}.jpg`)
      assert.isTrue(existsSync(file), `${id}: ${file} is missing`)
      const bytes = readFileSync(file)
      assert.isBelow(bytes.length, 8 * 1024)
      const image = jpeg.decode(bytes, { useTArray: true })
      assert.deepStrictEqual([image.width, image.height], [160, 90])
    }
  })
})
