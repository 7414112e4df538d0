// The CLI, run in-process, on the small things a newcomer trips on: a count read with its noun in the right
// number, a video file given where a tree folder goes, one tree's folder given where the folder of trees goes.
import { assert, describe, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { oneLine, samplesTrees, tempDir } from "../../support/harness/Cli.js"

const tree = join(samplesTrees, "vtSmpl0001a")

describe("counts and wrong paths (in-process CLI)", () => {
  it("tree search: one hit reads as '→ 1 node'", async () => {
    const result = await runCli(["tree", "search", tree, "eggs cracked", "-k", "1"], {})
    assert.strictEqual(result.code, 0, result.stderr)
    assert.match(result.stdout, /^\[Search results\] query "eggs cracked" → 1 node$/m)
  })

  it("tree validate VIDEO.mp4: one vtree: line asking for vtree build, exit 1", async () => {
    const temp = tempDir()
    try {
      const video = join(temp.dir, "VIDEO.mp4")
      writeFileSync(video, "not really a video")
      const result = await runCli(["tree", "validate", video], {})
      assert.strictEqual(result.code, 1)
      const line = oneLine(result.stderr)
      assert.include(line, "did you mean `vtree build")
      assert.notMatch(line, /ENOTDIR|BadResource/)
    } finally {
      temp.cleanup()
    }
  })

  it("mcp --trees ONE_TREE_FOLDER: asks 'did you mean --trees <its parent>?', exit 1", async () => {
    const result = await runCli(["mcp", "--trees", tree], {})
    assert.strictEqual(result.code, 1)
    const line = oneLine(result.stderr)
    assert.include(line, `did you mean --trees ${samplesTrees}?`)
  })
})
