// Agent loop benchmark: what the loop and the tools cost beyond the models themselves, what the
// per-run summary cache saves on a trajectory that revisits nodes, and what batching buys search_similar.
import { type Duration, Effect, Layer } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import * as ScriptedLlm from "../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../src/layers/testing/ScriptedVlm.js"
import { parseAgentReply } from "../src/programs/agent/Parse.js"
import { runQuestion, type RunQuestionOptions } from "../src/programs/agent/RunQuestion.js"
import { makeSummaryCache, type SummaryCache } from "../src/programs/tools/SummaryCache.js"
import { call, scriptFor, submit, toolModel } from "../test/support/agent/Fakes.js"
import type { NodeSpec } from "../test/support/agent/MemoryTree.js"
import { makeMemoryTree } from "../test/support/agent/MemoryTree.js"
import { testPrompts } from "../test/support/agent/Prompts.js"
import type { BenchModule } from "./run.js"
import { median, percentile } from "./stats.js"

const question = {
  questionId: "bench",
  question: "What does the presenter write on the board?",
  options: ["A. A formula", "B. A date", "C. A name", "D. Nothing"],
  taskType: "OCR Problems"
}

/** 4 scenes × 4 events × 4 frames, with cards about the length of real ones. */
const benchTree = () => {
  const specs: Array<NodeSpec> = []
  const filler = "The presenter stands beside a whiteboard and gestures at a diagram while the audience takes notes. "
  for (let s = 0; s < 4; s++) {
    const scene = `vid_L1_00${s}`
    const events: Array<string> = []
    for (let e = 0; e < 4; e++) {
      const event = `${scene}_L2_00${e}`
      const frames: Array<string> = []
      for (let f = 0; f < 4; f++) {
        const frame = `${event}_L3_00${f}`
        frames.push(frame)
        const t = s * 400 + e * 100 + f * 25
        specs.push({
          id: frame,
          level: 3,
          timeRange: [t, t],
          card: {
            frame_summary: filler.repeat(2),
            visible_entities: ["presenter", "board"],
            visible_text: [`SLIDE ${s}.${e}.${f}`]
          },
          subtitle: filler
        })
      }
      events.push(event)
      specs.push({
        id: event,
        level: 2,
        timeRange: [s * 400 + e * 100, s * 400 + e * 100 + 100],
        card: { event_description: filler.repeat(3), entities: ["presenter", "audience"] },
        subtitle: filler.repeat(4),
        children: frames
      })
    }
    specs.push({
      id: scene,
      level: 1,
      timeRange: [s * 400, s * 400 + 400],
      card: { scene_summary: filler.repeat(4), key_entities: ["presenter"], visible_text: ["LECTURE"] },
      subtitle: filler.repeat(8),
      children: events
    })
  }
  return makeMemoryTree(specs)
}

const tree = benchTree()
const prompts = testPrompts()
const ids = [...tree.index.nodes.keys()]
const l3 = ids.filter((id) => id.includes("_L3_"))

/** 14 tool steps over all three tools, then submit: a full 15-step question. */
const fifteenSteps = (offset: number) => [
  ...Array.from({ length: 14 }, (_, i) => {
    const id = ids[(offset + i * 7) % ids.length]!
    return i % 5 === 4
      ? call("observe_frame", { node_ids: [l3[(offset + i) % l3.length]!] })
      : i % 5 === 2
      ? call("search_similar", { query: "presenter board", k: 3 })
      : call("view_node", { node_id: id })
  }),
  submit("A")
]

const runOne = (
  agent: ReadonlyArray<string>,
  options: Partial<RunQuestionOptions> = {},
  latency?: Duration.DurationInput
) =>
  Effect.gen(function*() {
    const fakeOptions: ScriptedLlm.ScriptedLlmOptions = latency === undefined ? {} : { latency }
    const llm = yield* ScriptedLlm.make(scriptFor(agent, toolModel), fakeOptions)
    const vlm = yield* ScriptedVlm.make(() => "a formula on the board", fakeOptions)
    return yield* runQuestion(question, tree, { prompts, maxSteps: 15, ...options }).pipe(
      Effect.provide(Layer.merge(llm.layer, vlm.layer))
    )
  })

const noCache: SummaryCache = { getOrCompute: (_key, compute) => compute, size: () => 0 }

/** Parse time per reply over the corpus of reply shapes (test/fixtures/replies), each read many times. */
const parseTimes = () => {
  const folder = new URL("../test/fixtures/replies/", import.meta.url)
  const replies = readdirSync(folder).filter((name) => name.endsWith(".txt")).map((name) =>
    readFileSync(new URL(name, folder), "utf8")
  )
  for (let i = 0; i < 200; i++) for (const reply of replies) parseAgentReply(reply)
  const times: Array<number> = []
  for (let round = 0; round < 200; round++) {
    for (const reply of replies) {
      const start = performance.now()
      parseAgentReply(reply)
      times.push(performance.now() - start)
    }
  }
  return { replies: replies.length, times }
}

const run = async (): Promise<string> => {
  const parse = parseTimes()
  // 1. Overhead: zero-latency fakes, so all the time is loop, parsing, prompts, tools and fakes.
  for (let i = 0; i < 30; i++) await Effect.runPromise(runOne(fifteenSteps(i)))
  const perQuestion: Array<number> = []
  let steps = 0
  let toolCalls = 0
  const questions = 300
  for (let i = 0; i < questions; i++) {
    const started = performance.now()
    const prediction = await Effect.runPromise(runOne(fifteenSteps(i)))
    perQuestion.push(performance.now() - started)
    if (prediction.stepsUsed !== 15 || prediction.stopReason !== "finished") throw new Error("bench trajectory broke")
    steps += prediction.stepsUsed
    toolCalls += prediction.usage.tool.calls + prediction.usage.vlm.calls
  }
  const perStep = perQuestion.map((ms) => ms / 15)

  // 2. Summary cache: a trajectory that comes back to nodes it has seen, as agents do when they compare.
  const revisits = [
    call("view_node", { node_id: "vid_L1_000" }),
    call("view_node", { node_id: "vid_L1_000_L2_001" }),
    call("search_similar", { query: "presenter board", k: 5 }),
    call("view_node", { node_id: "vid_L1_000" }),
    call("view_node", { node_id: "vid_L1_001" }),
    call("view_node", { node_id: "vid_L1_000_L2_001" }),
    call("search_similar", { query: "presenter board", k: 5 }),
    call("view_node", { node_id: "vid_L1_001" }),
    call("view_node", { node_id: "vid_L1_000_L2_001_L3_002" }),
    call("view_node", { node_id: "vid_L1_000" }),
    submit("A")
  ]
  const withCache = await Effect.runPromise(runOne(revisits, { summaryCache: makeSummaryCache() }))
  const withoutCache = await Effect.runPromise(runOne(revisits, { summaryCache: noCache }))

  // 3. search_similar batching with 100 ms model calls (real time): bounded fibers vs one at a time.
  const searchOnly = [call("search_similar", { query: "presenter board", k: 5 }), submit("A")]
  const timed = async (options: Partial<RunQuestionOptions>) => {
    const started = performance.now()
    await Effect.runPromise(runOne(searchOnly, options, "100 millis"))
    return performance.now() - started
  }
  const batched = await timed({ batchConcurrency: 8 })
  const serial = await timed({ batchConcurrency: 1 })

  const ms = (value: number) => `${value.toFixed(3)} ms`
  return [
    "### Loop overhead (zero-latency fakes)",
    "",
    `${questions} questions of 15 steps each (14 tool steps mixing view_node, search_similar k=3 and observe_frame, then`,
    "submit_answer) over a 4×4×4 in-memory tree, run one after another with `Effect.runPromise` after 30 warm-up",
    `questions. Fakes answer at once, so the time is the loop, parsing, prompt rendering, the tools and the fakes'`,
    `own bookkeeping (${
      (toolCalls / questions).toFixed(0)
    } summarizer/VLM calls per question, extract and verify counted apart).`,
    "",
    "| figure | median | p90 | target | ratio to target |",
    "|---|---|---|---|---|",
    `| per step | ${ms(median(perStep))} | ${ms(percentile(perStep, 0.9))} | ≤ 1 ms | ${
      (median(perStep) / 1).toFixed(2)
    } |`,
    `| per 15-step question | ${ms(median(perQuestion))} | ${ms(percentile(perQuestion, 0.9))} | ≤ 50 ms | ${
      (median(perQuestion) / 50).toFixed(2)
    } |`,
    "",
    `Steps measured: ${steps}.`,
    "",
    "### Summary cache on a trajectory that revisits nodes",
    "",
    "10 tool steps: view_node on 5 distinct nodes with 5 revisits, and the same search_similar (k=5) twice; model",
    "calls counted from the prediction's usage (tool role; every call goes through `recordCall`).",
    "",
    "| run | summarizer calls | cache hits |",
    "|---|---|---|",
    `| with the per-run cache | ${withCache.usage.tool.calls} | ${withCache.stats.summaryCacheHits} |`,
    `| without (every request computed) | ${withoutCache.usage.tool.calls} | 0 |`,
    "",
    `Ratio with/without: ${(withCache.usage.tool.calls / withoutCache.usage.tool.calls).toFixed(2)}.`,
    "",
    "### search_similar batching",
    "",
    "One search_similar with k=5 (each hit extract → verify), every model call taking 100 ms of real time:",
    "",
    "| fibers | wall time | ideal |",
    "|---|---|---|",
    `| 8 (default bound) | ${batched.toFixed(0)} ms | 2 model latencies for the search + 2 agent calls = 400 ms |`,
    `| 1 (serial) | ${serial.toFixed(0)} ms | 10 + 2 = 1200 ms |`,
    "",
    `Ratio batched/ideal: ${(batched / 400).toFixed(2)}; serial/batched: ${(serial / batched).toFixed(2)}.`,
    "",
    "### Reply parsing",
    "",
    `\`parseAgentReply\` over the ${parse.replies} replies of \`test/fixtures/replies/\` (every shape the parser reads or refuses: think blocks,`,
    "fences, function-call shapes, several objects, cut-off and repaired JSON), 200 rounds after 200 warm-up rounds, each call timed alone.",
    "",
    "| figure | p50 | p99 | max | target |",
    "|---|---|---|---|---|",
    `| per reply | ${(median(parse.times) * 1000).toFixed(1)} µs | ${
      (percentile(parse.times, 0.99) * 1000).toFixed(1)
    } µs | ${(Math.max(...parse.times) * 1000).toFixed(1)} µs | far under 1 ms |`
  ].join("\n")
}

export default { title: "Agent loop", run } satisfies BenchModule
