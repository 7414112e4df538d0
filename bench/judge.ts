// Judging throughput: open-ended answers judged per second by `judgeRun` (the program `vtree judge` runs)
// over the real OpenAI judge adapter against openai-sim with a fixed latency, and the SQLite store; then
// the same answers again, every verdict from the cache.
import { Duration, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as MemoryCallBuffer from "../src/layers/memory/MemoryCallBuffer.js"
import * as OpenAiJudge from "../src/layers/openai/OpenAiJudge.js"
import * as JudgementRepository from "../src/layers/sql/JudgementRepository.js"
import * as SqliteRunStore from "../src/layers/sql/sqlite/SqliteRunStore.js"
import { judgePromptOf } from "../src/programs/judge/JudgePrompt.js"
import { judgeRun } from "../src/programs/judge/JudgeRun.js"
import { RunStore } from "../src/services/RunStore.js"
import * as Sim from "../test/support/openai-sim/index.js"
import type { BenchModule } from "./run.js"

const answers = 400
const latencyMs = 200
const concurrency = 8
const template = fs.readFileSync(new URL("../prompts/en/judge.md", import.meta.url), "utf8").trim()

const fill = Effect.gen(function*() {
  const store = yield* RunStore
  yield* store.startRun({ runId: "bench", config: {}, startedAt: 0 })
  for (let i = 0; i < answers; i++) {
    yield* store.saveQuestion("bench", {
      prediction: {
        questionId: `q${String(i).padStart(4, "0")}`,
        videoId: "vid1",
        taskType: "Causal_Inference",
        duration: null,
        question: `Why does the person in clip ${i} open the window?`,
        options: [],
        answer: "to let the smoke out",
        prediction: `Because the kitchen filled with smoke (clip ${i}).`,
        correct: false,
        evidence: null,
        reasoning: null,
        stepsUsed: 4,
        stopReason: "finished",
        error: null,
        promptTokens: 0,
        completionTokens: 0,
        startedAt: i,
        finishedAt: i + 1
      },
      steps: [],
      calls: []
    })
  }
  yield* store.finishRun("bench", "completed", answers + 1)
})

const benchmark: BenchModule = {
  title: "Judging open-ended answers: answers judged per second against the sim",
  run: async () => {
    const sim = await Sim.start({
      chat: {
        judge: () => ({ content: "{\"verdict\": \"correct\", \"reason\": \"same cause\"}", delayMs: latencyMs })
      }
    })
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vtree-bench-judge-"))
    try {
      const file = path.join(dir, "runs.db")
      const store = SqliteRunStore.layer({ filename: file })
      const layers = Layer.mergeAll(
        Layer.provideMerge(JudgementRepository.layer(file), store),
        MemoryCallBuffer.layer,
        OpenAiJudge.layer({
          judges: [{
            provider: "judge",
            baseUrl: sim.url,
            apiKey: Option.none(),
            model: "judge",
            timeout: Duration.seconds(60)
          }],
          sampling: { temperature: 0 },
          thinking: "none",
          reliability: { concurrency: 16, retries: 0 }
        })
      )
      const prompt = judgePromptOf(template)
      if (typeof prompt === "string") throw new Error(`judge.md ${prompt}`)
      const timed = async () => {
        const started = performance.now()
        const result = await Effect.runPromise(
          judgeRun({ runId: "bench", prompt, concurrency }).pipe(Effect.provide(layers))
        )
        return { result, seconds: (performance.now() - started) / 1000 }
      }
      await Effect.runPromise(fill.pipe(Effect.provide(store)))
      const fresh = await timed()
      const cached = await timed()
      const ideal = concurrency / (latencyMs / 1000)
      const rate = (run: typeof fresh) => run.result.judgements / run.seconds
      return [
        "| judging | answers | calls | wall time | answers/s | of the ideal |",
        "| --- | --- | --- | --- | --- | --- |",
        `| fresh, concurrency ${concurrency} | ${fresh.result.answers} | ${fresh.result.called} | ${
          fresh.seconds.toFixed(2)
        } s | ${rate(fresh).toFixed(1)} | ${((rate(fresh) / ideal) * 100).toFixed(0)} % of ${ideal.toFixed(1)} |`,
        `| again, all from the cache | ${cached.result.answers} | ${cached.result.called} | ${
          cached.seconds.toFixed(2)
        } s | ${rate(cached).toFixed(0)} | — |`,
        "",
        `${answers} open-ended answers, one judge, \`judgeRun\` (what \`vtree judge\` runs) in one process over the real ` +
        `OpenAI judge adapter and an SQLite run store; openai-sim answers every judge call after ${latencyMs} ms ` +
        `(a fixed latency, no token-rate model), so the ideal is concurrency / latency = ${
          ideal.toFixed(1)
        } answers/s. ` +
        `Each judgement is one cache lookup, one call, and one transaction (verdict + cache row) plus its call row. ` +
        `The second pass finds every verdict in the cache: no call, only the store. ` +
        `\`npx tsx bench/run.ts judge\`; 1-minute load average at the end: ${os.loadavg()[0]!.toFixed(1)} on 2 cores.`
      ].join("\n")
    } finally {
      await sim.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

export default benchmark
