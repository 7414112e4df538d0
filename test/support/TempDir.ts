// Every temporary folder of the tests comes from here: named `vtree-<name>-XXXXXX` under the OS temp folder,
// so a leftover is recognisable, and removed with its owner (a scope, a function, or the caller's own cleanup).
// No vitest import: the PostgreSQL global setup uses it too.
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, type Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const prefix = (name: string) => `vtree-${name}-`

/** A folder removed, with all it holds, when the scope closes. Failing to make or remove one is a defect. */
export const scopedTempDir = (name: string): Effect.Effect<string, never, Scope.Scope> =>
  FileSystem.FileSystem.pipe(
    Effect.flatMap((fs) => fs.makeTempDirectoryScoped({ prefix: prefix(name) })),
    Effect.orDie,
    // The real disk whatever FileSystem the test provides: a temp folder is where real files go.
    Effect.provide(NodeFileSystem.layer)
  )

/** A folder for code outside Effect and outside a test's lifetime (servers, module setup); pair it with `removeTempDir`. */
export const makeTempDir = (name: string): string => mkdtempSync(join(tmpdir(), prefix(name)))

export const removeTempDir = (dir: string): void => rmSync(dir, { recursive: true, force: true })

/** A folder for `use`, removed when it returns, throws, or (for a promise) settles. */
export const withTempDir = <A>(name: string, use: (dir: string) => A): A => {
  const dir = makeTempDir(name)
  let result: A
  try {
    result = use(dir)
  } catch (error) {
    removeTempDir(dir)
    throw error
  }
  if (result instanceof Promise) return result.finally(() => removeTempDir(dir)) as A
  removeTempDir(dir)
  return result
}
