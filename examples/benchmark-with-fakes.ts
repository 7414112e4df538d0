/**
 * A whole benchmark from your own Effect program: the samples' questions through `runBenchmark`, with
 * fake models, stored in SQLite, then summarized the way `vtree report` does.
 *
 *   npx tsx examples/benchmark-with-fakes.ts [db-file]
 */
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Providers } from "../src/index.js"
import {
  Benchmark,
  MemoryCallBuffer,
  Prompts,
  Questions,
  Report,
  SqliteRunStore,
  Store,
  Testing
} from "../src/index.js"

export const samples = fileURLToPath(new URL("../samples/", import.meta.url))

/** An agent that submits "C" to everything at once: about a third right on the samples. */
const fakeModel = (request: Providers.ChatRequest): string =>
  request.role === "tool"
    ? "details=nothing to add; confidence=0.5"
    : JSON.stringify({ reflect: {}, plan: {}, action: { tool: "submit_answer", args: { answer: "C" } } })

export const layers = (dbFile: string) =>
  Layer.mergeAll(
    Testing.ScriptedLlm.layer(fakeModel),
    Testing.ScriptedVlm.layer(() => "nothing seen"),
    SqliteRunStore.layer({ filename: dbFile }),
    // The CallLog the fakes report to, buffered per question so each question is saved whole.
    MemoryCallBuffer.layer
  )

export const program = Effect.gen(function*() {
  const questions = yield* Questions.loadQuestions(join(samples, "questions.jsonl"))
  const prompts = yield* Prompts.loadPromptManager(Prompts.packagedPromptsDir("en"))
  const { runId } = yield* Benchmark.runBenchmark({
    treesDir: join(samples, "trees"),
    questions,
    prompts,
    concurrency: 4
  })
  const run = yield* (yield* Store.RunStore).loadRun(runId)
  return Report.summarize(run)
})

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dbFile = process.argv[2] ?? join(mkdtempSync(join(tmpdir(), "vtree-example-")), "runs.db")
  program.pipe(
    Effect.flatMap((summary) => Console.log(Report.renderText(summary))),
    Effect.provide(Layer.provideMerge(layers(dbFile), NodeContext.layer)),
    NodeRuntime.runMain
  )
}
