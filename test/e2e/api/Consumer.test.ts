import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))

interface Finished {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

// Asynchronous on purpose: a synchronous child would block the test worker for a minute, long enough
// for vitest's own messages to the main process to time out.
const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout = 240_000): Promise<Finished> =>
  new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, timeout })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", fail)
    child.on("close", (status) => done({ status, stdout, stderr }))
  })

/** The "Using vtree from code" example (docs/library.md): the page's first js block, run as written. */
const libraryExample = (): string => {
  const page = readFileSync(join(root, "docs/library.md"), "utf8")
  const section = page.slice(page.indexOf("# Using vtree from code"))
  const block = /```js\n([\s\S]*?)```/.exec(section)
  if (block === null) throw new Error("docs/library.md: no js block under \"Using vtree from code\"")
  return block[1]!
}

/**
 * A project of its own with the packed tarball installed: the package is unpacked into node_modules/vtree
 * as npm installs it, and its dependencies are this repository's, linked one by one, so the test never
 * downloads anything (the machine may have no registry) and reads only what `npm pack` put in the tarball.
 */
const installPacked = async (dir: string, tarball: string): Promise<string> => {
  const project = join(dir, "project")
  const modules = join(project, "node_modules")
  mkdirSync(modules, { recursive: true })
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry.startsWith(".") || entry === "vtree") continue
    symlinkSync(join(root, "node_modules", entry), join(modules, entry))
  }
  const unpacked = await run("tar", ["-xzf", tarball, "-C", modules], project)
  if (unpacked.status !== 0) throw new Error(`tar: ${unpacked.stderr}`)
  renameSync(join(modules, "package"), join(modules, "vtree"))
  return project
}

describe("the packed package, installed in a project of its own", () => {
  it("ships its typings and builds the sample video into a tree, then answers on it, as the docs show", async () => {
    const dir = makeTempDir("consumer")
    try {
      // The global setup has just built dist/ (tsc, with declarations, and the CLI bundle).
      const pack = await run("npm", ["pack", "--json", "--pack-destination", dir], root)
      assert.strictEqual(pack.status, 0, pack.stderr)
      const packed = JSON.parse(pack.stdout) as ReadonlyArray<
        { readonly filename: string; readonly files: ReadonlyArray<{ readonly path: string }> }
      >
      const files = packed[0]!.files.map((file) => file.path)
      for (const shipped of ["dist/index.js", "dist/index.d.ts", "dist/search.d.ts", "dist/api/Builder.d.ts"]) {
        assert.include(files, shipped)
      }
      assert.include(files, "prompts/en/build_event.md")
      assert.include(files, "samples/video/vtDemo0001a.mp4")
      assert.isFalse(files.some((file) => file.startsWith("src/") || file.startsWith("test/")), "sources shipped")

      const project = await installPacked(dir, join(dir, packed[0]!.filename))

      // The typings resolve through the exports map, as a TypeScript user's editor reads them.
      writeFileSync(
        join(project, "types.ts"),
        [
          "import { Agent, Builder, Ffmpeg, Media, OpenAiSpeech, TesseractOcr } from \"vtree\"",
          "import { Search } from \"vtree/search\"",
          "export const build: typeof Builder.buildTree = Builder.buildTree",
          "export const ports = [Media.MediaProbe, Media.FrameSource, Media.SpeechToText, Agent.runQuestion] as const",
          "export const layers = [Ffmpeg.layerConfig, OpenAiSpeech.layer, TesseractOcr.layer] as const",
          "export const hub = Search.LiveSearchHub.layer(Search.SearchSettings.make({ enabled: true }))",
          ""
        ].join("\n")
      )
      const tsc = await run(process.execPath, [
        join(root, "node_modules/typescript/bin/tsc"),
        "--noEmit",
        "--strict",
        "--skipLibCheck",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "types.ts"
      ], project)
      assert.strictEqual(tsc.status, 0, tsc.stdout + tsc.stderr)

      writeFileSync(join(project, "example.mjs"), libraryExample())
      const example = await run(
        process.execPath,
        ["example.mjs", "node_modules/vtree/samples/video/vtDemo0001a.mp4", "trees"],
        project
      )
      assert.strictEqual(example.status, 0, example.stderr)
      const result = JSON.parse(example.stdout.trim().split("\n").at(-1)!) as { treeDir: string; answer: string }
      assert.strictEqual(resolve(project, result.treeDir), join(project, "trees", "vtDemo0001a"))
      assert.isTrue(existsSync(join(project, "trees", "vtDemo0001a", "tree.json")))
      // The scripted agent submits B; the answer comes back through the package's own agent loop.
      assert.strictEqual(result.answer, "B")
    } finally {
      removeTempDir(dir)
    }
  }, 600_000)
})
