import { existsSync } from "node:fs"
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
