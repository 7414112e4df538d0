// Report statistics benchmark (issue 40): how long `vtree report`'s summary and rendering take on a
// Video-MME-sized run (2,700 questions of 900 videos, 8 steps and 20 model calls each) now that a report
// adds the interval clustered by video, the cost distribution, and (compare) the paired bootstrap over
// videos. Rows are built in memory, so the figures are the report's own work, not the store's reads.
// Run: npx tsx bench/run.ts reportStatistics (rewrites its section of BENCHMARKS.md; needs no build).
import { cpus, loadavg } from "node:os"
import { VideoMmeTaskTypes } from "../src/domain/Question.js"
import { summarize } from "../src/programs/report/Report.js"
import { compareRuns, renderCompareJson, renderCompareText } from "../src/programs/report/ReportCompare.js"
import { compareBootstrap } from "../src/programs/report/ReportCompareStatistics.js"
import { costDistributionOf, questionUsages } from "../src/programs/report/ReportCostDistribution.js"
import { clusteredSummary } from "../src/programs/report/ReportStatistics.js"
import { renderJson, renderText } from "../src/programs/report/ReportText.js"
import type { ReportCall, ReportInput, ReportPrediction, ReportStep } from "../src/programs/report/Summary.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

const questions = 2_700
const roles = ["agent", "agent", "agent", "agent", "agent", "agent", "agent", "agent", "tool", "tool", "tool", "tool"]
  .concat(["tool", "tool", "vlm", "vlm", "embed", "embed", "embed", "embed"]) as ReadonlyArray<ReportCall["role"]>

/** One run; `shift` moves which questions are right, so two runs differ. */
const runOf = (runId: string, shift: number): ReportInput => {
  const predictions: Array<ReportPrediction> = []
  const steps: Array<ReportStep> = []
  const calls: Array<ReportCall> = []
  for (let i = 0; i < questions; i++) {
    const questionId = `${String(Math.floor(i / 3)).padStart(3, "0")}-${i % 3 + 1}`
    const videoId = `video${Math.floor(i / 3)}`
    const right = (i + shift) % 3 !== 0
    predictions.push({
      questionId,
      videoId,
      taskType: VideoMmeTaskTypes[i % VideoMmeTaskTypes.length]!,
      duration: (["short", "medium", "long"] as const)[Math.floor(i / 900)]!,
      domain: ["Knowledge", "Film & Television", "Sports Competition"][i % 3]!,
      question: `Benchmark question ${i}`,
      options: ["A. One", "B. Two", "C. Three", "D. Four"],
      answer: "B",
      prediction: i % 11 === 0 ? null : right ? "B" : "C",
      correct: right && i % 11 !== 0,
      evidence: null,
      reasoning: null,
      stepsUsed: 8,
      stopReason: "finished",
      error: null,
      promptTokens: 180_000 + (i % 97) * 1_000,
      completionTokens: 6_000,
      cachedPromptTokens: 120_000,
      startedAt: i * 60_000,
      finishedAt: i * 60_000 + 30_000 + (i % 53) * 1_000
    })
    for (let s = 1; s <= 8; s++) {
      steps.push({
        questionId,
        step: s,
        tool: s === 4 ? "observe_frame" : s === 8 ? "submit_answer" : "view_node",
        args: s === 4 ? { node_ids: [`${videoId}_L1_000_L2_001_L3_00${s % 4}`] } : { node_id: `${videoId}_L1_000` },
        output: "x".repeat(100),
        thought: null,
        reflect: {},
        plan: {}
      })
    }
    roles.forEach((role, c) =>
      calls.push({
        questionId,
        parentStep: role === "vlm" ? 4 : 1 + (c % 8),
        role,
        model: role,
        durationMs: 500 + (c * 37) % 400,
        promptTokens: role === "embed" ? 50 : 9_000,
        completionTokens: role === "embed" ? 0 : 300,
        cachedPromptTokens: role === "agent" ? 6_000 : 0,
        status: "ok",
        errorReason: null,
        attempts: 1
      })
    )
  }
  return {
    run: { runId, startedAt: 0, finishedAt: questions * 60_000, status: "completed" },
    predictions,
    steps,
    calls
  }
}

const prices = {
  agent: { input: 0.6, cachedInput: 0.15, output: 2.4 },
  tool: { input: 0.1, output: 0.4 },
  vlm: { input: 0.3, output: 1.2 },
  embed: { input: 0.02, output: 0 }
}

const timed = (repeats: number, f: () => unknown): number => {
  f()
  const times: Array<number> = []
  for (let i = 0; i < repeats; i++) {
    const start = performance.now()
    f()
    times.push(performance.now() - start)
  }
  return median(times)
}

const run = async (): Promise<string> => {
  const a = runOf("a", 0)
  const b = runOf("b", 1)
  const sideOf = (run: ReportInput) => ({
    runId: run.run.runId,
    source: "bench.db",
    predictions: run.predictions,
    calls: run.calls,
    steps: run.steps,
    costOf: () => 0.01
  })
  const summary = summarize(a, { prices })
  const rows: Array<[string, number]> = [
    ["summarize (all of the summary, new statistics included)", timed(7, () => summarize(a, { prices }))],
    [
      "↳ of which: interval clustered by video (overall + 3 axes)",
      timed(7, () => clusteredSummary(a.predictions, "(none)"))
    ],
    [
      "↳ of which: cost distribution (usage per question, p50/p90/max, per task type)",
      timed(7, () => costDistributionOf(a.predictions, questionUsages(a, () => 0.01), "(none)"))
    ],
    ["summarize + text", timed(7, () => renderText(summarize(a, { prices })))],
    ["summarize + json", timed(7, () => renderJson(summarize(a, { prices })))],
    [
      "compare (2,000 bootstrap resamples, overall + 21 categories) + text",
      timed(5, () => {
        const c = compareRuns(sideOf(a), sideOf(b))
        if (!("_tag" in c)) renderCompareText(c)
      })
    ],
    [
      "compare + json",
      timed(5, () => {
        const c = compareRuns(sideOf(a), sideOf(b))
        if (!("_tag" in c)) renderCompareJson(c)
      })
    ],
    [
      "↳ of which: paired bootstrap alone",
      timed(5, () => compareBootstrap(a.predictions, b.predictions, { resamples: 2000, seed: 1 }))
    ]
  ]
  const cpu = cpus()
  return [
    "A run of 2,700 questions (900 videos of 3 questions; 8 steps, one an observe_frame, and 20 model calls each),",
    "built in memory: the figures are summarizing and rendering, without the store's reads (the `report` section",
    "above times the whole command through SQLite). Median of 7 runs (compare: 5), after one warm-up.",
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, Node ${process.version}, load average ${
      loadavg().map((l) => l.toFixed(1)).join(" / ")
    } while measuring (other jobs shared the cores).`,
    "",
    "| Step | Median |",
    "|---|---:|",
    ...rows.map(([name, ms]) => `| ${name} | ${ms.toFixed(1)} ms |`),
    "",
    `The text report is ${(renderText(summary).length / 1024).toFixed(1)} kB, the json ${
      (renderJson(summary).length / 1024 / 1024).toFixed(1)
    } MB.`
  ].join("\n")
}

export default {
  title: "Report statistics: 2,700 questions, clustered interval, cost distribution, paired bootstrap",
  run
} satisfies BenchModule
