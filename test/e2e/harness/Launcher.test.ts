import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

// dist/bin.js loads the bundle dist/bundle/main.mjs (after switching on Node's compile cache where
// there is one); the bundle's external packages come from node_modules as in any install.
const root = fileURLToPath(new URL("../../..", import.meta.url))

const vtree = (...args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [join(root, "dist", "bin.js"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env["PATH"] ?? "" }
  })

describe("dist/bin.js", () => {
  it("runs the bundle: --version prints the package's version and leaves no cache file beside it", () => {
    const before = readdirSync(join(root, "dist")).sort()
    const result = vtree("--version")
    expect(result.status).toBe(0)
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
    expect(result.stdout).toContain(version)
    expect(readdirSync(join(root, "dist")).sort()).toEqual(before)
  })

  it("errors and exit codes pass through unchanged", () => {
    const result = vtree("tree", "validate", join(root, "no-such-tree"))
    expect(result.status).toBe(1)
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("no-such-tree")
  })
})
