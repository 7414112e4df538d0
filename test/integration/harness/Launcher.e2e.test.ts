import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

// dist/bin.js runs the one-file bundle dist/vtree.cjs. A copy holding only those two files and
// package.json shows the bundle carries everything the CLI needs but its native module.
const root = fileURLToPath(new URL("../../..", import.meta.url))
let install = ""

const vtree = (...args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [join(install, "dist", "bin.js"), ...args], { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "" } })

beforeAll(() => {
  install = mkdtempSync(join(tmpdir(), "vtree-launcher-"))
  mkdirSync(join(install, "dist"))
  copyFileSync(join(root, "dist", "bin.js"), join(install, "dist", "bin.js"))
  copyFileSync(join(root, "dist", "vtree.cjs"), join(install, "dist", "vtree.cjs"))
  copyFileSync(join(root, "package.json"), join(install, "package.json"))
})

afterAll(() => rmSync(install, { recursive: true, force: true }))

describe("dist/bin.js launcher", () => {
  it("runs the bundle: --version prints the package's version and writes nothing beside it", () => {
    const result = vtree("--version")
    expect(result.status).toBe(0)
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
    expect(result.stdout).toContain(version)
    expect(readdirSync(join(install, "dist")).sort()).toEqual(["bin.js", "vtree.cjs"])
  })

  it("errors and exit codes pass through the launcher unchanged", () => {
    const result = vtree("tree", "validate", join(install, "no-such-tree"))
    expect(result.status).toBe(1)
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("no-such-tree")
  })
})
