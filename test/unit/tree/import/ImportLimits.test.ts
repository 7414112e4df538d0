// The bounds of `vtree tree import` (ImportLimits.ts): a caption's text and times refused with the file
// and row, and an import's output (videos per file, nodes per tree, bytes of tree.json) refused before
// it is written. The output bounds are lowered through ImportOptions so the inputs stay small.
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Layer } from "effect"
import { readDvdDatabase } from "../../../../src/programs/import/Dvd.js"
import { importLimits } from "../../../../src/programs/import/ImportLimits.js"
import { type ImportOptions, importTrees } from "../../../../src/programs/import/ImportTree.js"
import { readJsonl } from "../../../../src/programs/import/Jsonl.js"
import { readLlovi } from "../../../../src/programs/import/Llovi.js"
import { readVideoAgentMemory } from "../../../../src/programs/import/VideoAgent.js"
import { FrameSource } from "../../../../src/services/FrameSource.js"
import { scopedTempDir } from "../../../support/TempDir.js"

const refusal = (result: Either.Either<unknown, { readonly message: string }>) => {
  if (Either.isRight(result)) return assert.fail("expected a refusal")
  return result.left.message
}

describe("caption bounds", () => {
  it("refuses a caption text longer than the bound, naming the file and key, without joining it", () => {
    const long = "x".repeat(importLimits.captionChars + 1)
    assert.match(refusal(readLlovi("l.json", { v: ["ok", long] })), /^l\.json: v\[1\]: caption text of \d+ characters/)
    const parts = Array.from({ length: 3 }, () => "y".repeat(Math.ceil(importLimits.captionChars / 2)))
    assert.match(refusal(readLlovi("l.json", { v: [parts] })), /^l\.json: v\[0\]: caption text of/)
  })

  it("refuses a time beyond the bound in every layout, naming the row, where 1.8e305 became null in tree.json", () => {
    const row = JSON.stringify({ video_id: "v", start: 0, end: 1.8e305, text: "x" })
    assert.match(refusal(readJsonl("c.jsonl", row)), /^c\.jsonl: line 1: end: .*1\.8e\+305.*at most 10000000 s/)
    assert.match(refusal(readLlovi("l.json", { v: { [`1${"0".repeat(305)}`]: "x" } })), /^l\.json: v\.1000.*at most/)
    assert.match(refusal(readVideoAgentMemory("m.json", { "0_30": "x" }, "m", 1e-9)), /^m\.json: 0_30: .*at most/)
    const db = { data: [{ time_start_secs: 0, time_end_secs: 1, caption: "x" }], video_length: 1e300 }
    assert.match(refusal(readDvdDatabase("d.json", db, "d")), /^d\.json: video_length: .*at most/)
  })
})

describe("import output bounds", () => {
  const withInput = (
    text: string,
    limits: Partial<NonNullable<ImportOptions["limits"]>>
  ) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* scopedTempDir("import-limits")
      const input = path.join(dir, "c.jsonl")
      yield* fs.writeFileString(input, text)
      const outDir = path.join(dir, "trees")
      const error = yield* importTrees(input, { outDir, eventSeconds: 20, sceneSeconds: 300, limits }).pipe(Effect.flip)
      const left = (yield* fs.exists(outDir)) ? yield* fs.readDirectory(outDir) : []
      return { message: error.message, left }
    })
  const rows = (videos: number, captions: number) =>
    Array.from(
      { length: videos },
      (_, v) =>
        Array.from({ length: captions }, (_, c) =>
          JSON.stringify({ video_id: `v${v}`, start: c, end: c + 1, text: `caption ${c} of video ${v}` }))
    ).flat()
      .join("\n")

  it.scoped("refuses a file of more videos than the bound, naming the file, before any tree is written", () =>
    Effect.gen(function*() {
      const { left, message } = yield* withInput(rows(4, 1), { videosPerFile: 3 })
      assert.match(message, /c\.jsonl: 4 videos, more than the 3 one import writes from a file — split the file/)
      assert.deepStrictEqual(left, [])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses a video whose tree would hold more nodes than the bound, naming the video", () =>
    Effect.gen(function*() {
      const { left, message } = yield* withInput(rows(2, 12), { nodesPerTree: 13 })
      assert.match(message, /c\.jsonl: v0: 12 captions make a tree of 14 nodes, more than 13/)
      assert.deepStrictEqual(left, [])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses a tree.json over the byte bound with a hint, and leaves no folder behind", () =>
    Effect.gen(function*() {
      const { left, message } = yield* withInput(rows(1, 30), { treeJsonBytes: 4096 })
      assert.match(message, /v0: its tree\.json would be \d[\d,.]* \w+B, more than the 4(\.0)? KiB/)
      assert.include(message, "split")
      assert.deepStrictEqual(left, [])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("an import stopped halfway", () => {
  it.scoped("interrupted while extracting frames: the tree folder it made is gone, a folder that was there is as it was", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* scopedTempDir("import-interrupted")
      const videos = path.join(dir, "videos")
      const outDir = path.join(dir, "trees")
      yield* fs.makeDirectory(videos)
      yield* fs.makeDirectory(path.join(outDir, "old"), { recursive: true })
      for (const id of ["new", "old"]) yield* fs.writeFileString(path.join(videos, `${id}.mp4`), "video")
      const input = path.join(dir, "l.json")
      yield* fs.writeFileString(input, JSON.stringify({ new: ["a"], old: ["b"] }))
      const extracting = yield* Deferred.make<void>()
      let started = 0
      const frames = Layer.succeed(
        FrameSource,
        FrameSource.of({
          extract: () =>
            Effect.suspend(() => ++started === 2 ? Deferred.succeed(extracting, undefined) : Effect.void).pipe(
              Effect.zipRight(Effect.never)
            )
        })
      )
      const fiber = yield* importTrees(input, { outDir, eventSeconds: 20, sceneSeconds: 300, videosDir: videos }).pipe(
        Effect.provide(frames),
        Effect.fork
      )
      yield* Deferred.await(extracting)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* fs.readDirectory(outDir), ["old"])
      assert.deepStrictEqual(yield* fs.readDirectory(path.join(outDir, "old")), [])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a folder whose build was interrupted (vtree build's marker, no tree.json) is refused without --force", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* scopedTempDir("import-over-build")
      const outDir = path.join(dir, "trees")
      yield* fs.makeDirectory(path.join(outDir, "v", ".vtree"), { recursive: true })
      const marker = path.join(outDir, "v", ".vtree", "tree-folder.json")
      yield* fs.writeFileString(marker, JSON.stringify({ made_by: "vtree build", videoID: "v" }))
      const input = path.join(dir, "l.json")
      yield* fs.writeFileString(input, JSON.stringify({ v: ["a"] }))
      const options = { outDir, eventSeconds: 20, sceneSeconds: 300 }
      const error = yield* importTrees(input, options).pipe(Effect.flip)
      assert.strictEqual(error._tag === "TreeImportError" && error.reason, "Refused")
      assert.match(error.message, /trees\/v: a tree vtree build made, not an import — .*--force/)
      yield* importTrees(input, { ...options, force: true })
      assert.isTrue(yield* fs.exists(path.join(outDir, "v", "tree.json")))
    }).pipe(Effect.provide(NodeContext.layer)))
})
