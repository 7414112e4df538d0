import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { idFromName } from "../../../src/domain/NameId.js"
import type { Question } from "../../../src/domain/Question.js"
import { checkTrees } from "../../../src/programs/harness/RunPlan.js"
import { readTreeIndex, treeFolderOf } from "../../../src/programs/tree/TreeLoader.js"
import { decodeTrees } from "../../../src/programs/tree/TreePreflight.js"
import { scopedTempDir } from "../../support/TempDir.js"

const sampleId = "vtSmpl0001a"

/** The bundled sample tree filed as `id`: its videoID and node ids renamed with it. */
const writeTree = (trees: string, id: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const sample = yield* fs.readFileString(path.join("samples", "trees", sampleId, "tree.json"))
    yield* fs.makeDirectory(path.join(trees, id), { recursive: true })
    yield* fs.writeFileString(path.join(trees, id, "tree.json"), sample.replaceAll(sampleId, id))
  })

const question = (videoId: string): Question => ({
  questionId: "q1",
  videoId,
  taskType: "Action Recognition",
  duration: null,
  domain: null,
  question: "What happens?",
  options: ["A. a", "B. b"],
  answer: "A"
})

const builtId = (name: string) => {
  const made = idFromName(name)
  if (!("id" in made)) throw new Error(`no id for ${name}`)
  return made.id
}

describe("a question's videoID finds the tree vtree build filed it under (issue #23)", () => {
  it.scoped("a videoID that is not an id (a space) finds <trees>/<its id>, as vtree build names it", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const trees = yield* scopedTempDir("tree-folders")
      const built = builtId("my video")
      assert.match(built, /^my-video~[0-9a-f]{8}$/)
      yield* writeTree(trees, built)
      assert.strictEqual(yield* treeFolderOf(trees, "my video"), path.join(trees, built))
      yield* checkTrees(trees, [question("my video")])
      yield* decodeTrees(trees, [question("my video")])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("the folder named exactly as the videoID wins; with neither, the plain path is the one named missing", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const trees = yield* scopedTempDir("tree-folders")
      yield* writeTree(trees, builtId("my video"))
      yield* fs.makeDirectory(path.join(trees, "my video"))
      yield* fs.writeFileString(path.join(trees, "my video", "tree.json"), "{}")
      assert.strictEqual(yield* treeFolderOf(trees, "my video"), path.join(trees, "my video"))

      assert.strictEqual(yield* treeFolderOf(trees, "other clip"), path.join(trees, "other clip"))
      const missing = yield* Effect.flip(checkTrees(trees, [question("other clip")]))
      assert.include(
        missing.message,
        `${path.join(trees, "other clip", "tree.json")}: not found, needed by question q1`
      )
      // A videoID that is an id already has one folder only.
      assert.strictEqual(yield* treeFolderOf(trees, sampleId), path.join(trees, sampleId))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a tree folder given as --trees names its parent; a folder of trees given as a tree names one of them", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const trees = yield* scopedTempDir("tree-folders")
      yield* writeTree(trees, sampleId)
      const oneTree = path.join(trees, sampleId)
      const missing = yield* Effect.flip(checkTrees(oneTree, [question(sampleId)]))
      assert.strictEqual(
        missing.message,
        `${path.join(oneTree, sampleId, "tree.json")}: not found, needed by question q1 — ${oneTree} is one video's ` +
          `tree (it holds tree.json), not the folder of trees: did you mean --trees ${trees}?`
      )
      // Given as typed: a relative path gets a relative parent.
      const relative = path.relative(path.resolve("."), oneTree)
      assert.include(
        (yield* Effect.flip(checkTrees(relative, [question(sampleId)]))).message,
        `did you mean --trees ${path.relative(path.resolve("."), trees)}?`
      )
      const notATree = yield* Effect.flip(readTreeIndex(trees))
      assert.strictEqual(
        notATree.message,
        `${path.join(trees, "tree.json")}: not found — ${trees} is a folder of 1 tree: did you mean ${oneTree}?`
      )
    }).pipe(Effect.provide(NodeContext.layer)))
})
