import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The folder holding vtree's package.json (and its prompts/ and samples/). Found by walking up from
 * this module, so it is right from `src/` (tsx, vitest), from `dist/` and from the bundled `dist/bin.js`.
 */
export const packageRoot = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`vtree: no package.json above ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
  return dir
}

/**
 * vtree's version, read from package.json at run time so `vtree --version` and the version a build
 * writes into tree.json never drift from the published one; "unknown" when the file cannot be read.
 */
export const packageVersion = (): string => {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version
  } catch {
    return "unknown"
  }
}
