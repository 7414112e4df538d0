// Run store benchmark: questions saved per second (one transaction each: the prediction, its steps and
// its calls), SQLite vs PostgreSQL, one writer and 16 concurrent writers. The baseline for claim
// overhead and for the write rates in docs/scaling.md.
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, type Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as PgRunStore from "../src/layers/sql/postgres/PgRunStore.js"
import * as SqliteRunStore from "../src/layers/sql/sqlite/SqliteRunStore.js"
import type { CallRecord } from "../src/services/CallLog.js"
import { type QuestionRecord, RunStore, type RunStoreError } from "../src/services/RunStore.js"
import * as Postgres from "../test/support/postgres/index.js"
import type { BenchModule } from "./run.js"
import { median } from "./stats.js"

// The mix docs/scaling.md assumes: 8 steps of ~2 KB tool output, 25 calls.
const stepsPerQuestion = 8
const callsPerQuestion = 25
const questions = 400

/** Question `i` as a run saves it: `steps` steps of 2 KB tool output and `calls` model calls. */
export const question = (i: number, steps = stepsPerQuestion, calls = callsPerQuestion): QuestionRecord => ({
  prediction: {
    questionId: `q${String(i).padStart(6, "0")}`,
    videoId: "vid1",
    taskType: "Counting Problem",
    duration: "long",
    question: "How many people appear in the video?",
    options: ["A. One", "B. Two", "C. Three", "D. Four"],
    answer: "B",
    prediction: "B",
    correct: true,
    evidence: "two people at 12 s",
    reasoning: "x".repeat(400),
    stepsUsed: steps,
    stopReason: "finished",
    error: null,
    promptTokens: 90_000,
    completionTokens: 8_000,
    startedAt: 1_700_000_000_000 + i,
    finishedAt: 1_700_000_100_000 + i
  },
  steps: Array.from({ length: steps }, (_, s) => ({
    step: s + 1,
    tool: "view_node",
    args: { node_id: "vid1_L1_000", question: "people?" },
    output: "o".repeat(2_000),
    thought: "look at the scene",
    reflect: { seen: s },
    plan: { next: "children" }
  })),
  calls: Array.from({ length: calls }, (_, c): CallRecord => ({
    questionId: null,
    parentStep: (c % steps) + 1,
    role: c % 3 === 0 ? "agent" : "tool",
    model: "m",
    startedAt: 1_700_000_000_000 + c,
    durationMs: 900,
    promptTokens: 3_000,
    completionTokens: 300,
    status: "ok",
    errorReason: null,
    endpoint: "http://gpu-1:8000/v1"
  }))
})

/** Seconds to save `questions` questions with `concurrency` writers, on a fresh run. */
const timeSaves = (runId: string, concurrency: number) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId, config: {} })
    const start = performance.now()
    yield* Effect.forEach(
      Array.from({ length: questions }, (_, i) => i),
      (i) => store.saveQuestion(runId, question(i)),
      {
        concurrency,
        discard: true
      }
    )
    return (performance.now() - start) / 1000
  })

const measure = (layer: Layer.Layer<RunStore, RunStoreError>) =>
  Effect.gen(function*() {
    const rounds: Record<1 | 16, Array<number>> = { 1: [], 16: [] }
    for (let round = 0; round < 3; round++) {
      for (const concurrency of [1, 16] as const) {
        rounds[concurrency].push(yield* timeSaves(`r${round}-${concurrency}`, concurrency))
      }
    }
    return { one: median(rounds[1]), sixteen: median(rounds[16]) }
  }).pipe(Effect.provide(layer), Effect.runPromise)

const bench: BenchModule = {
  title: "Run store: questions saved per second, SQLite and PostgreSQL",
  run: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vtree-store-bench-"))
    const cluster = await Postgres.start({ durable: true })
    try {
      const sqlite = await measure(SqliteRunStore.layer({ filename: path.join(dir, "bench.db") }))
      const durable = await measure(PgRunStore.layer({ url: Redacted.make(await cluster.createDatabase("durable")) }))
      const relaxedUrl = await cluster.createDatabase("relaxed")
      await Effect.runPromise(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`ALTER DATABASE relaxed SET synchronous_commit = off`
        }).pipe(Effect.provide(PgRunStore.layer({ url: Redacted.make(relaxedUrl) })))
      )
      const relaxed = await measure(PgRunStore.layer({ url: Redacted.make(relaxedUrl) }))
      const rows = 1 + stepsPerQuestion + callsPerQuestion
      const line = (name: string, figures: { one: number; sixteen: number }) => {
        const perSecond = (seconds: number) => questions / seconds
        return `| ${name} | ${(figures.one * 1000 / questions).toFixed(2)} ms | ${
          perSecond(figures.one).toFixed(0)
        } | ` +
          `${perSecond(figures.sixteen).toFixed(0)} | ${(perSecond(figures.sixteen) * rows).toFixed(0)} |`
      }
      return [
        `| store | per question, 1 writer | questions/s, 1 writer | questions/s, 16 writers | rows/s, 16 writers |`,
        `| --- | --- | --- | --- | --- |`,
        line("SQLite (WAL, synchronous NORMAL: no fsync per commit)", sqlite),
        line("PostgreSQL 15, durable (fsync and synchronous_commit on)", durable),
        line(
          "PostgreSQL 15, synchronous_commit off (like SQLite's NORMAL: a crash can drop the last commits)",
          relaxed
        ),
        "",
        `Each question is one transaction of ${rows} rows (the prediction, ${stepsPerQuestion} steps with 2 KB of tool output, ${callsPerQuestion} calls) — ` +
        `the mix docs/scaling.md assumes. ${questions} questions per round, medians of 3 rounds; one process (\`npx tsx bench/run.ts store\`); ` +
        `Postgres is a throwaway local cluster (test/support/postgres) on the same disk, reached over loopback TCP with a pool of 10. ` +
        `1-minute load average at the end: ${
          os.loadavg()[0]!.toFixed(1)
        } on ${os.cpus().length} cores (other work shares this machine).`
      ].join("\n")
    } finally {
      await cluster.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

export default bench
