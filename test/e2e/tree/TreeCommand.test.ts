import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { join } from "node:path"
import { bin } from "../../support/harness/Cli.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

type TreeJson = { nodes: Record<string, Record<string, unknown>> }

// dist/ is built by test/support/e2e/globalSetup.ts before the e2e project runs.
const vtree = (...args: Array<string>) =>
  Effect.async<{ code: number; stdout: string; stderr: string }>((resume) => {
    execFile(process.execPath, [bin, ...args], { encoding: "utf8" }, (error, stdout, stderr) => {
      resume(
        Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
      )
    })
  })

const tempTree = (change: (tree: TreeJson) => void = () => {}) =>
  Effect.gen(function*() {
    // The folder is named after the videoID, as the loader requires.
    const dir = join(yield* scopedTempDir("cli"), "VID")
    const tree = syntheticTree({ videoId: "VID", scenes: 2, eventsPerScene: 3, framesPerEvent: 4 }) as TreeJson
    change(tree)
    writeTree(dir, tree, {})
    return dir
  })

layer(NodeContext.layer)("vtree tree (built CLI)", (it) => {
  it.scoped("the built CLI exits 1 with that one line on a bad tree, 0 on a good one", () =>
    Effect.gen(function*() {
      const bad = yield* tempTree((tree) => (tree.nodes["VID_L1_000"]!["level"] = 7))
      const good = yield* tempTree()
      const [failed, passed] = yield* Effect.all([vtree("tree", "validate", bad), vtree("tree", "validate", good)], {
        concurrency: 2
      })
      assert.strictEqual(failed!.code, 1)
      assert.strictEqual(
        failed!.stderr.trim(),
        `vtree: ${
          join(bad, "tree.json")
        }: nodes.VID_L1_000.level: expected 1, 2 or 3, found 7 — fix the file or re-run the builder`
      )
      assert.strictEqual(passed!.code, 0, passed!.stderr)
      assert.include(passed!.stdout, ": ok\n")
    }))
})
