import { assert, describe, it } from "@effect/vitest"
import { cpSync, existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { samplesTrees, tempDir } from "../../support/harness/Cli.js"
import * as Sim from "../../support/openai-sim/index.js"

describe("vtree tree search", () => {
  it("uses the configured embedding endpoint (hybrid, as search_similar does) and BM25 without one", async () => {
    const sim = await Sim.start({ dimensions: 16 })
    const temp = tempDir()
    try {
      const trees = join(temp.dir, "trees")
      cpSync(samplesTrees, trees, { recursive: true })
      const tree = join(trees, "vtSmpl0001a")
      const plain = await runCli(["tree", "search", tree, "eggs cracked", "-k", "3"], {})
      assert.strictEqual(plain.code, 0, plain.stderr)
      assert.match(plain.stdout, /^\[Search results\] query "eggs cracked" → 3 nodes$/m)
      assert.strictEqual(sim.requests.length, 0)

      const hybrid = await runCli(["tree", "search", tree, "eggs cracked", "-k", "3"], {
        VTREE_EMBED_BASE_URL: sim.url,
        VTREE_EMBED_MODEL: "embed-model",
        VTREE_CACHE_DIR: join(temp.dir, "cache")
      })
      assert.strictEqual(hybrid.code, 0, hybrid.stderr)
      assert.match(hybrid.stdout, /→ 3 nodes/)
      assert.isTrue(sim.requests.some((request) => request.path === "/v1/embeddings"))
      assert.isTrue(
        readdirSync(join(temp.dir, "cache"), { recursive: true }).some((name) => String(name).includes("embeddings-"))
      )
      assert.isFalse(existsSync(join(tree, ".vtree")))
    } finally {
      await sim.close()
      temp.cleanup()
    }
  }, 60_000)
})
