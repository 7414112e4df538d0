import { assert, describe, it } from "@effect/vitest"
import { inShard, parseShard, type Shard } from "../../../src/programs/builder/BuildShard.js"

const ids = (n: number, prefix = "video") => Array.from({ length: n }, (_, i) => `${prefix}-${i}`)

const shards = (count: number): ReadonlyArray<Shard> =>
  Array.from({ length: count }, (_, i) => ({ index: i + 1, count }))

const split = (videoIds: ReadonlyArray<string>, count: number) =>
  shards(count).map((shard) => videoIds.filter(inShard(shard)))

describe("build shards (--shard i/n)", () => {
  it("every video lands in exactly one shard, whatever the count", () => {
    const videos = ids(1000)
    for (const count of [1, 2, 3, 7, 64]) {
      const parts = split(videos, count)
      const seen = parts.flat()
      assert.strictEqual(seen.length, videos.length)
      assert.deepStrictEqual([...new Set(seen)].sort(), [...videos].sort())
    }
  })

  it("the shares are even enough to keep a fleet busy: each of 8 shards holds 1000/8 ± 40%", () => {
    for (const part of split(ids(1000), 8)) {
      assert.isAbove(part.length, 75)
      assert.isBelow(part.length, 175)
    }
  })

  it("adding files moves no video to another shard, and the new ones are shared out too", () => {
    const before = ids(500)
    const after = [...before, ...ids(50, "added")]
    const partsBefore = split(before, 5)
    const partsAfter = split(after, 5)
    partsBefore.forEach((part, i) => {
      assert.deepStrictEqual(partsAfter[i]!.filter((id) => !id.startsWith("added")), part)
    })
    assert.strictEqual(partsAfter.flat().filter((id) => id.startsWith("added")).length, 50)
  })

  it("the split does not depend on the order the videos are listed in", () => {
    const videos = ids(200)
    const reversed = [...videos].reverse()
    split(videos, 4).forEach((part, i) => {
      assert.deepStrictEqual([...split(reversed, 4)[i]!].sort(), [...part].sort())
    })
  })

  it("parses i/n with 1 ≤ i ≤ n", () => {
    assert.deepStrictEqual(parseShard("1/4"), { shard: { index: 1, count: 4 } })
    assert.deepStrictEqual(parseShard(" 4 / 4 "), { shard: { index: 4, count: 4 } })
  })

  it("refuses what is not i/n with 1 ≤ i ≤ n, naming the flag", () => {
    for (const raw of ["0/4", "5/4", "1/0", "a/b", "1", "1/2/3", "-1/4", "1.5/4", ""]) {
      const parsed = parseShard(raw)
      assert.isTrue("problem" in parsed, raw)
      if ("problem" in parsed) {
        assert.strictEqual(
          parsed.problem,
          `--shard ${raw}: expected i/n with whole numbers 1 ≤ i ≤ n (--shard 1/4 … --shard 4/4 split the videos over four machines)`
        )
      }
    }
  })
})
