#!/usr/bin/env node
// Starts the CLI. `npm run build` bundles the whole CLI (src/main.ts) into the one file dist/vtree.cjs;
// this runs it with V8's compiled code cached beside it (or in the user's cache folder). Node 20 has no
// compile cache of its own (module.enableCompileCache came with Node 22), and parsing and compiling the
// bundle was most of `vtree --help`'s start-up: with the cache it is read back instead (BENCHMARKS.md).
// Without a bundle (tsc's output alone) main.js runs unbundled.
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Script } from "node:vm"

const here = dirname(fileURLToPath(import.meta.url))
const bundle = join(here, "vtree.cjs")

/**
 * Where the cache may live: beside the bundle, or, when the install is read-only, in the user's own
 * cache folder under a name tied to this bundle file (V8 also rejects a cache made from other source).
 * Never a shared temp folder: a code cache is compiled code, and one planted by another user would run.
 */
const cachePaths = (): ReadonlyArray<string> => {
  const { size, mtimeMs } = statSync(bundle)
  const key = createHash("sha256").update(`${bundle}\0${size}\0${mtimeMs}`).digest("hex").slice(0, 16)
  const paths = [`${bundle}.cache`]
  try {
    const cacheHome = process.env["XDG_CACHE_HOME"] || join(homedir(), ".cache")
    paths.push(join(cacheHome, "vtree", `${key}.v8cache`))
  } catch {
    // No home folder: only the place beside the bundle.
  }
  return paths
}

const readCache = (paths: ReadonlyArray<string>): Buffer | undefined => {
  for (const path of paths) {
    try {
      return readFileSync(path)
    } catch {
      // Not there (first run) or unreadable: try the next place.
    }
  }
  return undefined
}

/** Written whole or not at all (rename), so a concurrent start never reads half a cache. */
const writeCache = (paths: ReadonlyArray<string>, data: Buffer) => {
  for (const path of paths) {
    const partial = `${path}.${process.pid}.tmp`
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      writeFileSync(partial, data)
      renameSync(partial, path)
      return
    } catch {
      // Read-only or full: the cache only saves time, so the next place is tried, then nothing.
      rmSync(partial, { force: true })
    }
  }
}

const runBundle = () => {
  const paths = cachePaths()
  const cachedData = readCache(paths)
  const source = readFileSync(bundle, "utf8")
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData })
  })
  if (cachedData === undefined || script.cachedDataRejected === true) {
    // Made at exit, so it also holds the functions this run compiled lazily.
    process.once("exit", () => writeCache(paths, script.createCachedData()))
  }
  const module = { exports: {} }
  const run = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, here)
}

if (existsSync(bundle)) runBundle()
else await import("./main.js")
