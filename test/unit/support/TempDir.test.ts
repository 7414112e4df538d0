import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { existsSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { makeTempDir, removeTempDir, scopedTempDir, useTempDir } from "../../support/TempDir.js"

describe("TempDir", () => {
  it.effect("a scoped folder is named vtree-<name>- and goes, with its files, when the scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const dir = yield* Scope.extend(scopedTempDir("probe"), scope)
      assert.match(basename(dir), /^vtree-probe-/)
      writeFileSync(join(dir, "file.txt"), "x")
      assert.isTrue(existsSync(join(dir, "file.txt")))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(dir))
    }))

  const seen: Array<string> = []
  it("a test's folder exists while the test runs", () => {
    const dir = useTempDir("probe")
    seen.push(dir)
    assert.match(basename(dir), /^vtree-probe-/)
    assert.isTrue(existsSync(dir))
  })
  it("and is gone once that test finished", () => {
    assert.strictEqual(seen.length, 1)
    assert.isFalse(existsSync(seen[0]!))
  })

  it("a plain folder stays until removeTempDir, which also takes one already gone", () => {
    const dir = makeTempDir("probe")
    assert.isTrue(existsSync(dir))
    removeTempDir(dir)
    assert.isFalse(existsSync(dir))
    removeTempDir(dir)
  })
})
