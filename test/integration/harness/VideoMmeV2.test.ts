// Video-MME-v2 through the command line as a user runs it: `vtree infer --questions test.parquet` (written with
// a Parquet writer) against openai-sim, then `vtree report` (text and json) showing the group score beside the
// per-question accuracy, and `vtree export` writing the TSV the benchmark's own script reads.
import { assert, describe, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { videoMmeV2Parquet } from "../../support/benchmarks/VideoMmeV2Inputs.js"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel } from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"
import { writeSampleTreeAs } from "../../support/trees/SampleTree.js"

// 001 relevance: right, right, right, unread. 002 logic [1, [2, 3], 4]: right, unread, wrong, right.
// 003 logic [[1, 2], 3, 4]: unread, wrong, right, right.
const picks: Readonly<Record<string, string | null>> = Object.fromEntries(
  ["A", "B", "C", null, "E", null, "A", "H", null, "B", "D", "C"].map((
    letter,
    i
  ) => [`Video 00${Math.floor(i / 4) + 1} question ${(i % 4) + 1}?`, letter])
)

const questionIn = (request: Sim.SimRequest): string => {
  const messages = request.body["messages"] as ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  const user = messages.find((m) => m.role === "user")
  return /^Question: (.*)$/m.exec(typeof user?.content === "string" ? user.content : "")?.[1] ?? ""
}

describe("Video-MME-v2 through the CLI against openai-sim", () => {
  it("test.parquet as released is run, reported with its group score, and exported for its script", async () => {
    const temp = tempDir()
    const sim = await Sim.start({
      chat: {
        [agentModel]: (request) => {
          const letter = picks[questionIn(request)]
          if (letter === undefined) return { content: `unscripted question ${JSON.stringify(questionIn(request))}` }
          return {
            content: letter === null
              ? "I cannot tell."
              : JSON.stringify({ reflect: {}, plan: {}, action: { tool: "submit_answer", args: { answer: letter } } })
          }
        }
      }
    })
    try {
      const dir = temp.dir
      writeFileSync(join(dir, "test.parquet"), videoMmeV2Parquet())
      for (const video of ["001", "002", "003"]) writeSampleTreeAs(join(dir, "trees"), video)
      const db = join(dir, "runs.db")
      const env = simEnv(sim.url, { VTREE_OCR: "off" })
      const infer = await runCli(
        [
          "infer",
          "--trees",
          join(dir, "trees"),
          "--questions",
          join(dir, "test.parquet"),
          "--db",
          db,
          "--run-id",
          "r1",
          "--max-steps",
          "2"
        ],
        env
      )
      assert.strictEqual(infer.code, 0, infer.stderr)

      // Strict group scores: 001 [1,1,1,0] → 9/16; 002 [1,0,0,1] → 1/12; 003 [0,0,1,1] → 0.
      const groupScore = (9 / 16 + 1 / 12 + 0) / 3
      const json = await runCli(["report", "--db", db, "--format", "json"], env)
      assert.strictEqual(json.code, 0, json.stderr)
      const summary = JSON.parse(json.stdout) as {
        benchmark: string
        overall: { correct: number; unanswered: number; total: number }
        primary: { name: string; value: number } | null
        groupScores?: {
          note: string
          axes: ReadonlyArray<{ axis: string; groups: ReadonlyArray<{ key: string; score: number; groups: number }> }>
        }
      }
      assert.strictEqual(summary.benchmark, "videommev2")
      assert.deepStrictEqual([summary.overall.correct, summary.overall.unanswered, summary.overall.total], [7, 3, 12])
      assert.strictEqual(summary.primary?.name, "group score")
      assert.closeTo(summary.primary!.value, groupScore, 1e-9)
      const byType = summary.groupScores?.axes.find((a) => a.axis === "group type")?.groups ?? []
      assert.deepStrictEqual(byType.map((g) => [g.key, g.groups]), [["relevance", 1], ["logic", 2]])
      assert.include(summary.groupScores?.note ?? "", "3 unread answers, which the official script scores −1")

      const text = await runCli(["report", "--db", db], env)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.include(text.stdout, `group score ${(groupScore * 100).toFixed(1)}%`)
      assert.match(text.stdout, /Group score per level\n[^\n]*\n[^\n]*\n1\s+1\s+56\.3%/)

      const html = await runCli(["report", "--db", db, "--format", "html"], env)
      assert.strictEqual(html.code, 0, html.stderr)
      assert.include(html.stdout, "<h2>Group scores</h2>")
      assert.include(html.stdout, "Group score per third head")

      const out = join(dir, "results.tsv")
      const exported = await runCli(["export", "--db", db, "--out", out], env)
      assert.strictEqual(exported.code, 0, exported.stderr)
      const tsv = readFileSync(out, "utf8").split("\n")
      assert.strictEqual(tsv[0]!.split("\t").at(-1), "prediction")
      assert.strictEqual(tsv.filter((line) => /^\d+\t/.test(line)).length, 12)
    } finally {
      await sim.close()
      temp.cleanup()
    }
  })
})
