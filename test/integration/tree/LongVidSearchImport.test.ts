// `vtree tree import --from longvidsearch` in-process: a video-caption.parquet written by a Parquet writer
// becomes one tree per video, offline, each clip an L3 node whose id ends with its clip index; tree
// validate accepts them; a corrupt file is refused in one line. Then a run on them end to end.
import { afterEach, assert, describe, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { captionParquet } from "../../support/benchmarks/LongVidSearchFiles.js"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel, toolModel } from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
const folder = () => {
  const temp = tempDir()
  cleanups.push(temp.cleanup)
  return temp.dir
}

const clips = Array.from({ length: 5 }, (_, i) => ({
  vid: "-7wwfGJXEZg",
  slice_num: 5 - i,
  cap: `Clip ${5 - i}: soldiers march past gate ${5 - i}.`
}))

describe("vtree tree import --from longvidsearch", () => {
  it("imports video-caption.parquet offline: a tree per video, L3 ids ending with the clip index, valid", async () => {
    const dir = folder()
    const input = join(dir, "video-caption.parquet")
    writeFileSync(input, captionParquet([...clips, { vid: "0PBgtlsO9c4", slice_num: 1, cap: "A chef chops onions." }]))
    const trees = join(dir, "trees")
    for (const from of [["--from", "longvidsearch"], []]) {
      const result = await runCli(["tree", "import", input, "--out", trees, ...from], {})
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stdout, "imported 2 trees (6 captions)")
    }
    const tree = JSON.parse(readFileSync(join(trees, "-7wwfGJXEZg", "tree.json"), "utf8")) as {
      build: { source: { format: string; file: string } }
      nodes: Record<string, { level: number; time_range: [number, number]; card: Record<string, unknown> }>
    }
    assert.deepStrictEqual(tree.build.source, {
      ...tree.build.source,
      format: "longvidsearch",
      file: "video-caption.parquet"
    })
    const leaves = Object.entries(tree.nodes).filter(([, node]) => node.level === 3)
    assert.deepStrictEqual(
      leaves.map(([id, node]) => [id.replace(/^.*_L3_/, ""), node.time_range]),
      [["001", [0, 30]], ["002", [30, 60]], ["003", [60, 90]], ["004", [90, 120]], ["005", [120, 150]]]
    )
    assert.include(JSON.stringify(tree.nodes[leaves[2]![0]]!.card), "Clip 3: soldiers march past gate 3.")
    for (const video of ["-7wwfGJXEZg", "0PBgtlsO9c4"]) {
      const validated = await runCli(["tree", "validate", join(trees, video)], {})
      assert.strictEqual(validated.code, 0, validated.stdout + validated.stderr)
    }
  })

  it("refuses a corrupt parquet in one line, writing nothing", async () => {
    const dir = folder()
    const input = join(dir, "video-caption.parquet")
    const bytes = captionParquet(clips)
    bytes.fill(9, 4, bytes.length - 8)
    writeFileSync(input, bytes)
    const result = await runCli(["tree", "import", input, "--out", join(dir, "trees"), "--from", "longvidsearch"], {})
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr.trim(), /^vtree: .*video-caption\.parquet: not a Parquet file vtree can read \(.*\) — /)
    assert.strictEqual(result.stderr.trim().split("\n").length, 1)
  })
})

/** An agent that views clip 2, looks at clip 4's frame, then answers in free text citing clip 4. */
const agentScript = (video: string) => (request: Sim.SimRequest): Sim.ChatReply => {
  const messages = request.body["messages"] as ReadonlyArray<{ role: string }>
  const step = messages.filter((message) => message.role === "assistant").length
  const clip = (n: number) => `${video}_L1_000_L2_00${n === 2 ? 1 : n === 4 ? 3 : 0}_L3_00${n}`
  const action = step === 0
    ? { tool: "view_node", args: { node_id: clip(2) } }
    : step === 1
    ? { tool: "observe_frame", args: { node_ids: [clip(4)] } }
    : {
      tool: "submit_answer",
      args: { answer: "Soldiers march past gates 2 and 4.", evidence: [clip(4)], reasoning: "read the clips" }
    }
  return { content: JSON.stringify({ reflect: {}, plan: {}, action }) }
}

describe("LongVidSearch end to end", () => {
  it("infers on the released layouts against openai-sim; report and export give evidence recall and tool calls", async () => {
    const dir = folder()
    const captions = join(dir, "video-caption.parquet")
    writeFileSync(captions, captionParquet(clips))
    const trees = join(dir, "trees")
    assert.strictEqual((await runCli(["tree", "import", captions, "--out", trees], {})).code, 0)
    const dataset = join(dir, "dataset")
    mkdirSync(dataset)
    writeFileSync(
      join(dataset, "-7wwfGJXEZg_qa.json"),
      JSON.stringify([{
        question: "Which gates do the soldiers march past, early and later?",
        answer: "Gate 2, then gate 4.",
        category: "Visual_Tracking",
        hop_level: "2-Hop",
        evidence_slices: [2, 4],
        reasoning_chain: "Step 1: Slice 2 … Step 2: Slice 4 …",
        logic_check_reasoning: "…",
        visual_proof: "…"
      }])
    )
    const sim = await Sim.start({
      chat: {
        [agentModel]: agentScript("-7wwfGJXEZg"),
        [toolModel]: () => ({ content: "Soldiers march past a gate." })
      }
    })
    cleanups.push(() => sim.close())
    const db = join(dir, "runs.db")
    const env = simEnv(sim.url)
    const inferred = await runCli(["infer", "--trees", trees, "--questions", dataset, "--db", db], env)
    assert.strictEqual(inferred.code, 0, inferred.stderr)
    assert.include(
      inferred.stdout,
      "Evidence recall 100.0% of the gold clips viewed or cited (viewed 100.0%, cited 50.0%"
    )
    const report = await runCli(["report", "--db", db, "--format", "json"], env)
    assert.strictEqual(report.code, 0, report.stderr)
    const summary = JSON.parse(report.stdout) as {
      benchmark: string
      evidence: { recall: number; viewedRecall: number; citedRecall: number; toolCalls: { total: number } }
      axes: ReadonlyArray<{ axis: string }>
    }
    assert.strictEqual(summary.benchmark, "longvidsearch")
    assert.deepStrictEqual(
      [summary.evidence.recall, summary.evidence.viewedRecall, summary.evidence.citedRecall],
      [1, 1, 0.5]
    )
    assert.strictEqual(summary.evidence.toolCalls.total, 2)
    assert.deepStrictEqual(summary.axes.map((a) => a.axis), ["category", "hop level"])
    const html = await runCli(["report", "--db", db, "--format", "html", "--out", join(dir, "report.html")], env)
    assert.strictEqual(html.code, 0, html.stderr)
    assert.include(readFileSync(join(dir, "report.html"), "utf8"), "Visual_Tracking")
    const exported = await runCli(["export", "--db", db], env)
    assert.strictEqual(exported.code, 0, exported.stderr)
    const row = JSON.parse(exported.stdout.trim()) as Record<string, unknown>
    assert.deepStrictEqual(
      [
        row["question_id"],
        row["golden_evidence_clip"],
        row["evidence_clip_ids"],
        row["viewed_clip_ids"],
        row["tool_calls"]
      ],
      ["-7wwfGJXEZg_0", [2, 4], [4], [2, 4], 2]
    )
  })
})
