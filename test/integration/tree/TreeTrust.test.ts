// The CLI, run in-process, on trees and question files that must not be trusted: a value
// nested 10,000 deep, a tree that does not decode, a videoID that would leave --trees.
import { afterEach, assert, describe, it } from "@effect/vitest"
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { readDb, samplesJsonl, samplesTrees, simEnv, tempDir } from "../../support/harness/Cli.js"
import * as Sim from "../../support/openai-sim/index.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const video = "vtSmpl0001a"
const sampleTree = () => readFileSync(join(samplesTrees, video, "tree.json"), "utf8")

/** A copy of samples/trees with the sample tree's text changed. */
const treesWith = (change: (text: string) => string) => {
  const temp = tempDir()
  cleanups.push(temp.cleanup)
  const trees = join(temp.dir, "trees")
  cpSync(samplesTrees, trees, { recursive: true })
  writeFileSync(join(trees, video, "tree.json"), change(sampleTree()))
  return { dir: temp.dir, trees, file: join(trees, video, "tree.json") }
}

const deep = "[".repeat(10_000) + "]".repeat(10_000)
const withDeepSubtitle = (text: string) => text.replace(`"subtitle":`, `"subtitle":${deep},"was":`)

describe("untrusted trees and ids (in-process CLI)", () => {
  it("tree validate: a node holding 10,000 nested arrays is one located line and exit 1, not a stack overflow", async () => {
    const { file } = treesWith(withDeepSubtitle)
    const result = await runCli(["tree", "validate", file], {})
    assert.strictEqual(result.code, 1)
    assert.match(
      result.stderr,
      /^vtree: \S+tree\.json: nodes\.vtSmpl0001a_L1_000\.subtitle(\[0\])+…: nested more than 64 levels deep \(line \d+, column \d+\) — a tree needs about 10; fix the file or re-run the builder\n$/
    )
    assert.notInclude(result.stderr, "internal error")
  })

  it("infer: a tree that does not decode stops the run before the first question, exit 1 with file and JSON path", async () => {
    const sim = await Sim.start({ chat: {} })
    cleanups.push(() => sim.close())
    for (
      const [change, expected] of [
        [
          (text: string) => text.replace(/"level": ?1/, `"level": 7`),
          `nodes.vtSmpl0001a_L1_000.level: expected 1, 2 or 3, found 7`
        ],
        [withDeepSubtitle, `nodes.vtSmpl0001a_L1_000.subtitle[0][0]`]
      ] as const
    ) {
      const { dir, file, trees } = treesWith(change)
      const db = join(dir, "runs.db")
      const result = await runCli(["infer", "--trees", trees, "--questions", samplesJsonl, "--db", db], simEnv(sim.url))
      assert.strictEqual(result.code, 1, result.stderr)
      assert.strictEqual(result.stdout, "")
      const lines = result.stderr.trimEnd().split("\n")
      assert.strictEqual(lines.length, 1, result.stderr)
      assert.include(lines[0], `vtree: ${file}: ${expected}`)
      assert.strictEqual(sim.requests.length, 0)
      if (existsSync(db)) {
        assert.strictEqual(readDb(db, (h) => h.prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n, 0)
      }
    }
  })

  it("infer: a videoID such as ../../x/y is refused with one line, before anything is read", async () => {
    const temp = tempDir()
    cleanups.push(temp.cleanup)
    // A tree.json that the traversal would reach, to show it is never read.
    mkdirSync(join(temp.dir, "x", "y"), { recursive: true })
    writeFileSync(join(temp.dir, "x", "y", "tree.json"), sampleTree().replaceAll(video, "y"))
    const trees = join(temp.dir, "a", "trees")
    mkdirSync(trees, { recursive: true })
    const questions = join(temp.dir, "questions.jsonl")
    const line = JSON.parse(readFileSync(samplesJsonl, "utf8").split("\n")[0]!)
    writeFileSync(questions, JSON.stringify({ ...line, videoID: "../../x/y" }) + "\n")
    const db = join(temp.dir, "runs.db")
    const result = await runCli(
      ["infer", "--trees", trees, "--questions", questions, "--db", db],
      simEnv("http://127.0.0.1:9/v1")
    )
    assert.strictEqual(result.code, 1)
    assert.strictEqual(
      result.stderr,
      `vtree: question "001-1": videoID "../../x/y" contains a path separator — a videoID names one folder under --trees: fix the question file\n`
    )
    assert.isFalse(existsSync(db))
  })
})
