import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { existsSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { makeTempDir, removeTempDir, scopedTempDir, withTempDir } from "../../support/TempDir.js"

describe("TempDir", () => {
  it.effect("a scoped folder is named vtree-<name>- and goes, with its files, when the scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const dir = yield* Scope.extend(scopedTempDir("probe"), scope)
      assert.match(basename(dir), /^vtree-probe-/)
      writeFileSync(join(dir, "file.txt"), "x")
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(dir))
    }))

  it("withTempDir removes the folder after the function returns or throws", () => {
    const kept = withTempDir("probe", (dir) => {
      assert.match(basename(dir), /^vtree-probe-/)
      writeFileSync(join(dir, "file.txt"), "x")
      return dir
    })
    assert.isFalse(existsSync(kept))
    let thrownIn = ""
    assert.throws(() =>
      withTempDir("probe", (dir) => {
        thrownIn = dir
        throw new Error("boom")
      }), "boom")
    assert.isFalse(existsSync(thrownIn))
  })

  it("withTempDir removes the folder once a promise settles, rejected too", async () => {
    let dir = ""
    const answer = await withTempDir("probe", async (d) => {
      dir = d
      assert.isTrue(existsSync(d))
      return 42
    })
    assert.strictEqual(answer, 42)
    assert.isFalse(existsSync(dir))
    const failed = await withTempDir("probe", async (d) => {
      dir = d
      throw new Error("boom")
    }).catch((error: Error) => error.message)
    assert.strictEqual(failed, "boom")
    assert.isFalse(existsSync(dir))
  })

  it("a plain folder stays until removeTempDir, which also takes one already gone", () => {
    const dir = makeTempDir("probe")
    assert.isTrue(existsSync(dir))
    removeTempDir(dir)
    assert.isFalse(existsSync(dir))
    removeTempDir(dir)
  })
})
