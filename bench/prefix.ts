// Prefix cache: what share of the agent's prompt tokens a prefix-caching server (vLLM, OpenAI, DeepSeek,
// DashScope) serves from its cache on a scripted multi-step trajectory. The real agent loop, en prompt
// pack and tools talk HTTP to openai-sim, whose cache counts the longest prefix a request shares with an
// earlier request to the same model; the figures are the usage the layer read back, per question.
import { Effect } from "effect"
import { loadSample, runSample, trajectoryScripts } from "../test/support/agent/SimTrajectory.js"
import * as Sim from "../test/support/openai-sim/index.js"
import type { BenchModule } from "./run.js"

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`

const run = async (): Promise<string> => {
  const sample = await Effect.runPromise(loadSample(7))
  const sim = await Sim.start({ chat: trajectoryScripts(sample.replies) })
  try {
    const predictions = await Effect.runPromise(runSample(sample, sim.url))
    const rows = predictions.map((p) => {
      const agent = p.usage.agent
      if (p.stopReason !== "finished") throw new Error(`bench trajectory broke: ${p.questionId} ${p.stopReason}`)
      return {
        id: p.questionId,
        calls: agent.calls,
        prompt: agent.promptTokens,
        cached: agent.cachedPromptTokens ?? 0,
        tool: p.usage.tool
      }
    })
    const sum = (pick: (row: (typeof rows)[number]) => number) => rows.reduce((total, row) => total + pick(row), 0)
    const [first] = rows
    const target = 0.9
    const share = sum((r) => r.cached) / sum((r) => r.prompt)
    return [
      `${rows.length} sample questions (samples/, the packaged en pack), one after another, each the same scripted`,
      `${
        first!.calls
      }-call trajectory: 3 view_node, an unparseable reply, search_similar, an unknown tool, observe_frame,`,
      "view_node, submit_answer. Agent and summarizer are openai-sim over HTTP through the OpenAI layer; the sim's",
      "cache is per model and shared by all requests (as on a server), prompt tokens ≈ characters / 4.",
      "",
      "| question | agent calls | prompt tokens | cached | cached share |",
      "|---|---|---|---|---|",
      ...rows.map((r) => `| ${r.id} | ${r.calls} | ${r.prompt} | ${r.cached} | ${percent(r.cached, r.prompt)} |`),
      `| **all** | ${sum((r) => r.calls)} | ${sum((r) => r.prompt)} | ${sum((r) => r.cached)} | **${
        percent(sum((r) => r.cached), sum((r) => r.prompt))
      }** |`,
      "",
      `Target ≥ 90 % of agent prompt tokens cached over the run: ${
        share >= target ? "met" : "missed"
      } (ratio to target ${(share / target).toFixed(2)}).`,
      `The first question starts on a cold cache (${
        percent(first!.cached, first!.prompt)
      }); later ones find the system prompt`,
      "and tool descriptions cached from the questions before. The summarizer's calls (tool role) repeat their",
      `prompt templates: ${percent(sum((r) => r.tool.cachedPromptTokens ?? 0), sum((r) => r.tool.promptTokens))} of ${
        sum((r) => r.tool.promptTokens)
      } tokens cached.`
    ].join("\n")
  } finally {
    await sim.close()
  }
}

export default { title: "Prefix cache (agent prompt tokens served from a server's cache)", run } satisfies BenchModule
