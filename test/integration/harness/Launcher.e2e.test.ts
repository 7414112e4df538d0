import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

// dist/bin.js runs the one-file bundle with a V8 code cache beside it. This copy of the launcher and
// bundle has a cache of its own, so the tests running the real dist/bin.js meanwhile never see it.
const root = fileURLToPath(new URL("../../..", import.meta.url))
let install = ""
let cache = ""

const vtree = (...args: ReadonlyArray<string>) => vtreeWith({}, ...args)

const vtreeWith = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [join(install, "dist", "bin.js"), ...args], { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "", ...env } })

beforeAll(() => {
  install = mkdtempSync(join(tmpdir(), "vtree-launcher-"))
  mkdirSync(join(install, "dist"))
  copyFileSync(join(root, "dist", "bin.js"), join(install, "dist", "bin.js"))
  copyFileSync(join(root, "dist", "vtree.cjs"), join(install, "dist", "vtree.cjs"))
  copyFileSync(join(root, "package.json"), join(install, "package.json"))
  cache = join(install, "dist", "vtree.cjs.cache")
})

afterAll(() => rmSync(install, { recursive: true, force: true }))

describe("dist/bin.js launcher", () => {
  it("the first run writes a code cache beside the bundle; later runs use it and answer the same", () => {
    const first = vtree("--version")
    expect(first.status).toBe(0)
    expect(existsSync(cache)).toBe(true)
    const written = readFileSync(cache)
    const second = vtree("--version")
    expect(second.status).toBe(0)
    expect(second.stdout).toBe(first.stdout)
    // An accepted cache is left as it is.
    expect(readFileSync(cache).equals(written)).toBe(true)
  })

  it("a corrupt cache is rejected by V8, the CLI still runs, and the cache is rewritten", () => {
    writeFileSync(cache, Buffer.from("not a V8 code cache at all"))
    const result = vtree("--version")
    expect(result.status).toBe(0)
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    expect(readFileSync(cache).toString("utf8")).not.toContain("not a V8 code cache")
  })

  it("when the place beside the bundle cannot be used, the cache goes to the user's cache folder", () => {
    rmSync(cache, { force: true })
    // A folder where the cache file would go: neither readable nor replaceable as a file.
    mkdirSync(cache)
    const cacheHome = join(install, "xdg-cache")
    const first = vtreeWith({ XDG_CACHE_HOME: cacheHome }, "--version")
    expect(first.status).toBe(0)
    const files = readdirSync(join(cacheHome, "vtree"))
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/\.v8cache$/)
    expect(statSync(join(cacheHome, "vtree")).mode & 0o777).toBe(0o700)
    // No half-written file is left beside the bundle.
    expect(readdirSync(join(install, "dist")).filter((name) => name.endsWith(".tmp"))).toEqual([])
    const written = readFileSync(join(cacheHome, "vtree", files[0]!))
    const second = vtreeWith({ XDG_CACHE_HOME: cacheHome }, "--version")
    expect(second.stdout).toBe(first.stdout)
    expect(readFileSync(join(cacheHome, "vtree", files[0]!)).equals(written)).toBe(true)
    rmSync(cache, { recursive: true })
  })

  it("errors and exit codes pass through the launcher unchanged", () => {
    const result = vtree("tree", "validate", join(install, "no-such-tree"))
    expect(result.status).toBe(1)
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("no-such-tree")
  })
})
