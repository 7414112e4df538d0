// `vtree tree import --from longvidsearch` in-process: a video-caption.parquet written by a Parquet writer
// becomes one tree per video, offline, each clip an L3 node whose id ends with its clip index; tree
// validate accepts them; a corrupt file is refused in one line. Then runs on them end to end, one of them
// judged by three scripted judges: the judges' majority is LongVidSearch's headline.
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

/** Four questions on the clips, one per category, over every hop level; each names its gold clips. */
const judgedQuestions = [
  {
    question: "Which gates do the soldiers march past, early and later?",
    answer: "Gate 2, then gate 4.",
    category: "Visual_Tracking",
    hop_level: "2-Hop",
    evidence_slices: [2, 4]
  },
  {
    question: "Why does the column halt before the third gate?",
    answer: "The third gate is still closed.",
    category: "Causal_Inference",
    hop_level: "2-Hop",
    evidence_slices: [1, 3]
  },
  {
    question: "How does the marching formation change from the first gate to the fifth?",
    answer: "It narrows from ranks of four to a single file.",
    category: "State_Mutation",
    hop_level: "3-Hop",
    evidence_slices: [1, 3, 5]
  },
  {
    question: "What is this parade about overall?",
    answer: "A military parade through five gates.",
    category: "Global_Summary",
    hop_level: "4-Hop",
    evidence_slices: [1, 2, 3, 4]
  }
].map((row) => ({ ...row, reasoning_chain: "Step 1: …", logic_check_reasoning: "…", visual_proof: "…" }))

/** Which of `judgedQuestions` a prompt (the agent's or a judge's) is about, by a phrase only its question has. */
const whichQuestion = (request: Sim.SimRequest): 0 | 1 | 2 | 3 => {
  const text = Sim.promptText(request.body)
  return text.includes("gates do the soldiers")
    ? 0
    : text.includes("column halt")
    ? 1
    : text.includes("marching formation")
    ? 2
    : 3
}

/**
 * The agent per question: 0 views clip 2, looks at clip 4's frame, answers citing 4 (2 tool calls); 1 views
 * clip 3 and answers citing it (1); 2 answers at once citing nothing (0); 3 answers at once citing 1 and 2 (0).
 */
const judgedAgent = (video: string) => (request: Sim.SimRequest): Sim.ChatReply => {
  const messages = request.body["messages"] as ReadonlyArray<{ role: string }>
  const step = messages.filter((message) => message.role === "assistant").length
  const clip = (n: number) => `${video}_L1_000_L2_00${n - 1}_L3_00${n}`
  const answer = (text: string, evidence: ReadonlyArray<number>) => ({
    tool: "submit_answer",
    args: { answer: text, evidence: evidence.map(clip), reasoning: "read the clips" }
  })
  const plan: ReadonlyArray<ReadonlyArray<{ tool: string; args: Record<string, unknown> }>> = [
    [
      { tool: "view_node", args: { node_id: clip(2) } },
      { tool: "observe_frame", args: { node_ids: [clip(4)] } },
      answer("Soldiers march past gates 2 and 4.", [4])
    ],
    [{ tool: "view_node", args: { node_id: clip(3) } }, answer("They wait for the band to catch up.", [3])],
    [answer("The formation stays the same throughout.", [])],
    [answer("A military parade through five gates.", [1, 2])]
  ]
  const steps = plan[whichQuestion(request)]!
  return { content: JSON.stringify({ reflect: {}, plan: {}, action: steps[Math.min(step, steps.length - 1)] }) }
}

const verdict = (verdict: "correct" | "incorrect") => ({ content: JSON.stringify({ verdict, reason: "scripted" }) })
const C = verdict("correct")
const I = verdict("incorrect")
/** Three judges, per question 0–3; judge-c answers question 2 in prose: a judge failure. */
const lvsJudges: Record<string, Sim.Script<Sim.ChatReply>> = {
  "judge-a": (request) => [C, C, I, C][whichQuestion(request)]!,
  "judge-b": (request) => [C, I, C, C][whichQuestion(request)]!,
  "judge-c": (request) => [C, I, { content: "Hard to say; partly right." }, C][whichQuestion(request)]!
}

describe("LongVidSearch judged end to end", () => {
  it("infers, judges with three scripted judges, and reports the majority per category and hop level", async () => {
    const dir = folder()
    const captions = join(dir, "video-caption.parquet")
    writeFileSync(captions, captionParquet(clips))
    const trees = join(dir, "trees")
    assert.strictEqual((await runCli(["tree", "import", captions, "--out", trees], {})).code, 0)
    const dataset = join(dir, "dataset")
    mkdirSync(dataset)
    writeFileSync(join(dataset, "-7wwfGJXEZg_qa.json"), JSON.stringify(judgedQuestions))
    const sim = await Sim.start({
      chat: {
        [agentModel]: judgedAgent("-7wwfGJXEZg"),
        [toolModel]: () => ({ content: "Soldiers march past a gate." }),
        ...lvsJudges
      }
    })
    cleanups.push(() => sim.close())
    const db = join(dir, "runs.db")
    const env = simEnv(sim.url, {
      VTREE_JUDGE_BASE_URL: sim.url,
      VTREE_JUDGE_MODEL: "judge-a,judge-b,judge-c",
      VTREE_JUDGE_PRICE: "1,2"
    })
    const inferred = await runCli(["infer", "--trees", trees, "--questions", dataset, "--db", db], env)
    assert.strictEqual(inferred.code, 0, inferred.stderr)

    type Group = { key: string; correct: number; wrong: number; unscored: number; accuracy: number | null }
    interface Judged {
      benchmark: string
      primary: { name: string; value: number | null }
      axes: ReadonlyArray<{ axis: string; groups: ReadonlyArray<Group> }>
      evidence: { recall: number; toolCalls: { total: number } }
      judges: {
        openEnded: number
        judges: ReadonlyArray<Group & { judge: string; failed: number }>
        majority: Group
        ties: number
        agreement: {
          pairs: ReadonlyArray<{ a: string; b: string; agree: number; compared: number }>
          fleissKappa: number | null
          items: number
        }
      }
      tokens: { byRole: ReadonlyArray<{ role: string; calls: number; promptTokens: number }> }
      cost: { byRole: ReadonlyArray<{ role: string; usd: number | null }> }
    }
    const reportJson = async () => {
      const report = await runCli(["report", "--db", db, "--format", "json"], env)
      assert.strictEqual(report.code, 0, report.stderr)
      return JSON.parse(report.stdout) as Judged
    }
    const counts = (g: Group) => [g.key, g.correct, g.wrong, g.unscored]

    // Before judging, every answer is unjudged: unscored, never wrong, and the headline has nothing to divide.
    const before = await reportJson()
    assert.strictEqual(before.benchmark, "longvidsearch")
    assert.deepStrictEqual(before.primary, { name: "judged accuracy (judges' majority)", value: null })
    assert.deepStrictEqual(before.axes.map((a) => a.groups.map(counts)), [
      [
        ["Causal_Inference", 0, 0, 1],
        ["Global_Summary", 0, 0, 1],
        ["Visual_Tracking", 0, 0, 1],
        ["State_Mutation", 0, 0, 1]
      ],
      [["2-Hop", 0, 0, 2], ["3-Hop", 0, 0, 1], ["4-Hop", 0, 0, 1]]
    ])
    assert.include((await runCli(["report", "--db", db], env)).stdout, "not judged yet, all unscored")

    const judged = await runCli(["judge", "--db", db], env)
    assert.strictEqual(judged.code, 0, judged.stderr)
    assert.include(judged.stdout, "4 open-ended answers, 12 judgements (12 asked, 0 from the cache, 1 judge failures)")

    // The verdicts per question (q0 … q3), majority of those given:
    //   judge-a  C C I C → 3 correct, 1 wrong: 75%
    //   judge-b  C I C C → 3 correct, 1 wrong: 75%
    //   judge-c  C I – C → 2 correct, 1 wrong, q2 failed so unscored: 2/3
    //   majority C I tie C → q0 correct, q1 wrong (1–2), q2 a 1–1 tie (unscored), q3 correct: 2/3, 1 tie
    // Pairwise over the questions both judged: a/b agree on q0, q3 of 4; a/c on q0, q3 of 3; b/c on q0, q1, q3 of 3.
    // Fleiss' κ over q0, q1, q3 (all three judged), counts [correct, incorrect] = [3,0], [1,2], [3,0]:
    //   P_i = Σ n(n−1) / (3·2) = 1, 1/3, 1 → P̄ = 7/9; p_correct = 7/9, p_incorrect = 2/9 → P̄e = 53/81;
    //   κ = (63/81 − 53/81) / (28/81) = 10/28 = 5/14.
    // Per category: Causal_Inference q1 wrong; Global_Summary q3 correct; Visual_Tracking q0 correct;
    // State_Mutation q2 unscored. Per hop level: 2-Hop q0 correct + q1 wrong (50%); 3-Hop q2 unscored; 4-Hop q3 correct.
    const after = await reportJson()
    const judges = after.judges
    assert.strictEqual(judges.openEnded, 4)
    assert.deepStrictEqual(
      judges.judges.map((j) => [j.judge, j.correct, j.wrong, j.unscored, j.failed, j.accuracy]),
      [["judge-a", 3, 1, 0, 0, 0.75], ["judge-b", 3, 1, 0, 0, 0.75], ["judge-c", 2, 1, 1, 1, 2 / 3]]
    )
    assert.deepStrictEqual(
      [judges.majority.correct, judges.majority.wrong, judges.majority.unscored, judges.majority.accuracy],
      [2, 1, 1, 2 / 3]
    )
    assert.strictEqual(judges.ties, 1)
    assert.deepStrictEqual(
      judges.agreement.pairs.map((p) => [p.a, p.b, p.agree, p.compared]),
      [["judge-a", "judge-b", 2, 4], ["judge-a", "judge-c", 2, 3], ["judge-b", "judge-c", 3, 3]]
    )
    assert.strictEqual(judges.agreement.items, 3)
    assert.closeTo(judges.agreement.fleissKappa!, 5 / 14, 1e-12)

    assert.deepStrictEqual(after.primary, { name: "judged accuracy (judges' majority)", value: 2 / 3 })
    assert.deepStrictEqual(after.axes.map((a) => a.axis), ["category", "hop level"])
    assert.deepStrictEqual(after.axes.map((a) => a.groups.map(counts)), [
      [
        ["Causal_Inference", 0, 1, 0],
        ["Global_Summary", 1, 0, 0],
        ["Visual_Tracking", 1, 0, 0],
        ["State_Mutation", 0, 0, 1]
      ],
      [["2-Hop", 1, 1, 0], ["3-Hop", 0, 0, 1], ["4-Hop", 1, 0, 0]]
    ])
    assert.deepStrictEqual(after.axes[1]!.groups.map((g) => g.accuracy), [0.5, null, 1])
    // Recall: q0 2/2, q1 1/2 (clip 3), q2 0/3, q3 2/4 (clips 1, 2 cited) → mean 2/4; tool calls 2 + 1 + 0 + 0.
    assert.strictEqual(after.evidence.recall, 0.5)
    assert.strictEqual(after.evidence.toolCalls.total, 3)

    // The judges' calls are a role of their own: 3 judges × 4 answers, the failed reply included.
    const role = after.tokens.byRole.find((r) => r.role === "judge")!
    assert.strictEqual(role.calls, 12)
    assert.isAbove(role.promptTokens, 0)
    assert.isAbove(after.cost.byRole.find((r) => r.role === "judge")!.usd!, 0)

    const text = await runCli(["report", "--db", db], env)
    assert.strictEqual(text.code, 0, text.stderr)
    assert.include(
      text.stdout,
      "Benchmark LongVidSearch · judged accuracy (judges' majority) 66.7% (of the judged answers; a tie or an " +
        "unjudged answer is unscored) · 4 open-ended (scored by judges, below), letter accuracy over the 0 keyed"
    )
    assert.include(text.stdout, "Open-ended answers judged (4 questions)")
    assert.include(
      text.stdout,
      "Ties (judges split evenly; unscored) 1 · agreement judge-a / judge-b 50.0% (2/4), " +
        "judge-a / judge-c 66.7% (2/3), judge-b / judge-c 100.0% (3/3) · Fleiss' κ 0.357 over 3 questions"
    )
    assert.match(text.stdout, /^judge-a +3 +1 +0 +0 +0 +75\.0% /m)
    assert.match(text.stdout, /^judge-c +2 +1 +1 +1 +0 +66\.7% /m)
    assert.match(text.stdout, /^majority +2 +1 +1 +66\.7% /m)
    // The per-role table: 12 judge calls, none failed.
    assert.match(text.stdout, /^judge +12 +0 +0 /m)
    assert.match(text.stdout, /^3-Hop +0 +0 +0 +1 +0 +— /m)

    const exported = await runCli(["export", "--db", db, "--format", "longvidsearch"], env)
    assert.strictEqual(exported.code, 0, exported.stderr)
    const rows = exported.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    assert.deepStrictEqual(
      rows.map((row) => [row["question_id"], row["answer"], row["evidence_clip_ids"], row["tool_calls"]]),
      [
        ["-7wwfGJXEZg_0", "Soldiers march past gates 2 and 4.", [4], 2],
        ["-7wwfGJXEZg_1", "They wait for the band to catch up.", [3], 1],
        ["-7wwfGJXEZg_2", "The formation stays the same throughout.", [], 0],
        ["-7wwfGJXEZg_3", "A military parade through five gates.", [1, 2], 0]
      ]
    )
  })
})
