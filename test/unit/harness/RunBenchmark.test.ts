// runBenchmark in-process: the public fakes for models, the real SQLite store in a temporary folder.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Option, Queue, TestClock } from "effect"
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as BenchmarkExample from "../../../examples/benchmark-with-fakes.js"
import * as EmbedExample from "../../../examples/embed-agent.js"
import type { Tree } from "../../../src/index.js"
import {
  Benchmark,
  MemoryCallBuffer,
  Prompts,
  Providers,
  Questions,
  SqliteRunStore,
  Store,
  Testing
} from "../../../src/index.js"
import type { UnsafeIdError } from "../../../src/programs/tree/TreePreflight.js"
import { prediction } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const samples = fileURLToPath(new URL("../../../samples/", import.meta.url))
const samplesTrees = join(samples, "trees")

const tempDir = scopedTempDir("bench-test")

const submitting = (answer: string) =>
  JSON.stringify({ reflect: {}, plan: {}, action: { tool: "submit_answer", args: { answer } } })

/** A model answering C, whose every call waits at a gate offered to `started` for the test to open. */
const gatedLlm = (started: Queue.Queue<Deferred.Deferred<void>>) =>
  Layer.effect(
    Providers.LLMProvider,
    Effect.map(Testing.ScriptedLlm.make(() => submitting("C")), (scripted) =>
      Providers.LLMProvider.of({
        chat: (request) =>
          Effect.gen(function*() {
            const gate = yield* Deferred.make<void>()
            yield* Queue.offer(started, gate)
            yield* Deferred.await(gate)
            return yield* scripted.service.chat(request)
          })
      }))
  )

const questionOf = (request: Providers.ChatRequest): string =>
  /^Question: (.*)$/m.exec(request.messages[1]?.content ?? "")?.[1] ?? ""

/** The store and call buffer over a fresh database, plus the given model fakes and the platform. */
const storeLayer = (db: string, models: Layer.Layer<any>, owners: "one" | "many" = "one") =>
  Layer.mergeAll(models, SqliteRunStore.layer({ filename: db, owners }), MemoryCallBuffer.layer, NodeContext.layer)

/**
 * A run's context built once over a fresh database (the run and the test's checks share one connection and
 * one call buffer), whose model answers C once the test opens the gate each call offers to `started`.
 */
const gatedContext = (owners: "one" | "many" = "one") =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const started = yield* Queue.unbounded<Deferred.Deferred<void>>()
    const context = yield* Layer.build(
      storeLayer(join(dir, "runs.db"), Layer.mergeAll(gatedLlm(started), Testing.ScriptedVlm.layer(() => "-")), owners)
    )
    const store = yield* Store.RunStore.pipe(Effect.provide(context))
    return { started, context, store }
  })

const sampleQuestions = Questions.loadQuestions(join(samples, "questions.jsonl")).pipe(
  Effect.provide(NodeContext.layer)
)
const prompts = Prompts.loadPromptManager(Prompts.packagedPromptsDir("en")).pipe(Effect.provide(NodeContext.layer))

describe("examples", () => {
  it.effect("embed-agent answers with the fake models and reports every call with its step", () =>
    Effect.gen(function*() {
      const { calls, prediction } = yield* EmbedExample.program
      assert.strictEqual(prediction.prediction, "C")
      assert.strictEqual(prediction.stopReason, "finished")
      assert.deepStrictEqual(calls.filter((c) => c.role === "agent").map((c) => c.parentStep), [1, 2])
      assert.isTrue(calls.filter((c) => c.role === "tool").every((c) => c.parentStep === 1))
      assert.isTrue(calls.filter((c) => c.role === "tool").every((c) => c.questionId === "001-1"))
    }).pipe(Effect.provide(Layer.provideMerge(EmbedExample.FakeModels, NodeContext.layer))))

  it.scoped("benchmark-with-fakes runs the samples into SQLite and summarizes them", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const summary = yield* BenchmarkExample.program.pipe(
        Effect.provide(BenchmarkExample.layers(join(dir, "runs.db")))
      )
      assert.strictEqual(summary.status, "completed")
      assert.strictEqual(summary.questions, 7)
      // The fake always answers C; C is right for 001-1, 001-3 and 001-6.
      assert.deepStrictEqual([summary.overall.correct, summary.overall.total], [3, 7])
      assert.deepStrictEqual(summary.byDuration.map((g) => g.key), ["medium"])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("runBenchmark", () => {
  it.scoped("resume skips saved questions and asks only the rest", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const all = yield* sampleQuestions
      const pack = yield* prompts
      const llm = yield* Testing.ScriptedLlm.make(() => submitting("A"))
      const layer = storeLayer(join(dir, "runs.db"), Layer.mergeAll(llm.layer, Testing.ScriptedVlm.layer(() => "-")))
      const first = yield* Benchmark.runBenchmark({
        treesDir: samplesTrees,
        questions: all.slice(0, 3),
        prompts: pack,
        runId: "r1"
      }).pipe(
        Effect.provide(layer)
      )
      assert.deepStrictEqual(first, { runId: "r1", answered: 3, skipped: 0, status: "completed" })
      const second = yield* Benchmark.runBenchmark({
        treesDir: samplesTrees,
        questions: all,
        prompts: pack,
        resume: true
      }).pipe(
        Effect.provide(layer)
      )
      assert.deepStrictEqual(second, { runId: "r1", answered: 4, skipped: 3, status: "completed" })
      const asked = (yield* llm.requests).map(questionOf)
      assert.deepStrictEqual(asked, all.map((q) => q.question))
      const loaded = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("r1")).pipe(Effect.provide(layer))
      assert.strictEqual(loaded.predictions.length, 7)
      assert.strictEqual(loaded.run.status, "completed")

      const again = yield* Effect.exit(
        Benchmark.runBenchmark({ treesDir: samplesTrees, questions: all, prompts: pack, runId: "r1" }).pipe(
          Effect.provide(layer)
        )
      )
      assert.isTrue(Exit.isFailure(again))
    }))

  it.scoped("--protocol tools: answers through native calls, stores the protocol, and refuses to resume with the other", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const all = (yield* sampleQuestions).slice(0, 2)
      const pack = yield* prompts
      const llm = yield* Testing.ScriptedLlm.make((request) =>
        request.role === "agent"
          ? Testing.ScriptedLlm.toolCallReply([["submit_answer", { answer: "B" }]], {
            content: "{\"reflect\": {}, \"plan\": {}}"
          })
          : "-"
      )
      const layer = storeLayer(join(dir, "runs.db"), Layer.mergeAll(llm.layer, Testing.ScriptedVlm.layer(() => "-")))
      yield* Benchmark.runBenchmark({
        treesDir: samplesTrees,
        questions: all.slice(0, 1),
        prompts: pack,
        runId: "t1",
        protocol: "tools"
      }).pipe(
        Effect.provide(layer)
      )
      const [request] = yield* llm.requests
      assert.deepStrictEqual(request!.tools?.map((tool) => tool.name), [
        "view_node",
        "search_similar",
        "observe_frame",
        "submit_answer"
      ])
      const loaded = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("t1")).pipe(Effect.provide(layer))
      assert.strictEqual((loaded.run.config as { protocol: string }).protocol, "tools")
      assert.deepStrictEqual(loaded.predictions.map((p) => [p.prediction, p.stopReason, p.stepsUsed]), [[
        "B",
        "finished",
        1
      ]])
      assert.deepStrictEqual(loaded.predictions[0]!.replyShapes, { "function-call": 1 })

      const mixed = yield* Effect.exit(
        Benchmark.runBenchmark({ treesDir: samplesTrees, questions: all, prompts: pack, runId: "t1", resume: true })
          .pipe(
            Effect.provide(layer)
          )
      )
      assert.isTrue(Exit.isFailure(mixed))
      assert.match(String(Exit.isFailure(mixed) ? mixed.cause : ""), /run t1 was started with --protocol tools/)
      const resumed = yield* Benchmark.runBenchmark({
        treesDir: samplesTrees,
        questions: all,
        prompts: pack,
        runId: "t1",
        resume: true,
        protocol: "tools"
      })
        .pipe(Effect.provide(layer))
      assert.deepStrictEqual(resumed, { runId: "t1", answered: 1, skipped: 1, status: "completed" })
    }))

  it.scoped("a defect in the agent becomes an error row; the rest run", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const [good, crashing] = (yield* sampleQuestions).slice(0, 2) as [Questions.Question, Questions.Question]
      const model = (request: Providers.ChatRequest) => {
        if (questionOf(request) === crashing.question) throw new Error("boom in the model fake")
        return submitting(good.answer ?? "A")
      }
      const layer = storeLayer(
        join(dir, "runs.db"),
        Layer.mergeAll(Testing.ScriptedLlm.layer(model), Testing.ScriptedVlm.layer(() => "-"))
      )
      const result = yield* Benchmark.runBenchmark({
        treesDir: samplesTrees,
        questions: [good, crashing],
        prompts: yield* prompts,
        runId: "r2"
      }).pipe(Effect.provide(layer))
      assert.strictEqual(result.answered, 2)
      const rows = (yield* Effect.flatMap(Store.RunStore, (store) =>
        store.loadRun("r2")).pipe(Effect.provide(layer))).predictions
      const byId = new Map(rows.map((row) => [row.questionId, row]))
      assert.strictEqual(byId.get(good.questionId)?.stopReason, "finished")
      assert.isTrue(byId.get(good.questionId)?.correct)
      assert.strictEqual(byId.get(crashing.questionId)?.stopReason, "error")
      assert.match(byId.get(crashing.questionId)?.error ?? "", /internal error: .*boom in the model fake/)
    }))

  it.scoped("a tree that does not decode fails the run before its first question, naming file and JSON path", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const trees = join(dir, "trees")
      cpSync(join(samplesTrees, "vtSmpl0001a"), join(trees, "vtSmpl0001a"), { recursive: true })
      mkdirSync(join(trees, "broken"), { recursive: true })
      const brokenTree = JSON.parse(readFileSync(join(samplesTrees, "vtSmpl0001a", "tree.json"), "utf8"))
      brokenTree.videoID = "broken"
      brokenTree.nodes = Object.fromEntries(
        Object.entries(brokenTree.nodes as Record<string, Record<string, unknown>>).map((
          [id, node]
        ) => [id, id === "vtSmpl0001a_L1_001" ? { ...node, level: 7 } : node])
      )
      writeFileSync(join(trees, "broken", "tree.json"), JSON.stringify(brokenTree))
      const [good] = (yield* sampleQuestions).slice(0, 1) as [Questions.Question]
      const broken: Questions.Question = { ...good, questionId: "b-1", videoId: "broken", duration: null }
      let asked = 0
      const layer = storeLayer(
        join(dir, "runs.db"),
        Layer.mergeAll(
          Testing.ScriptedLlm.layer(() => (asked++, submitting("A"))),
          Testing.ScriptedVlm.layer(() => "-")
        )
      )
      const error = (yield* Effect.flip(
        Benchmark.runBenchmark({ treesDir: trees, questions: [good, broken], prompts: yield* prompts, runId: "r2" })
          .pipe(
            Effect.provide(layer)
          )
      )) as Tree.TreeDecodeError
      assert.strictEqual(error._tag, "TreeDecodeError")
      assert.strictEqual(
        error.message,
        `${
          join(trees, "broken", "tree.json")
        }: nodes.vtSmpl0001a_L1_001.level: expected 1, 2 or 3, found 7 — fix the file or re-run the builder`
      )
      assert.strictEqual(asked, 0)
      assert.strictEqual(
        (yield* Effect.flatMap(Store.RunStore, (store) => store.listRuns).pipe(Effect.provide(layer))).length,
        0
      )
    }))

  it.scoped("a videoID or question id that would leave --trees is refused before any file is read", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const layer = storeLayer(
        join(dir, "runs.db"),
        Layer.mergeAll(Testing.ScriptedLlm.layer(() => submitting("A")), Testing.ScriptedVlm.layer(() => "-"))
      )
      const [good] = (yield* sampleQuestions).slice(0, 1) as [Questions.Question]
      const pack = yield* prompts
      const refused = (question: Questions.Question) =>
        Effect.flip(
          Benchmark.runBenchmark({ treesDir: samplesTrees, questions: [good, question], prompts: pack }).pipe(
            Effect.provide(layer)
          )
        ).pipe(
          Effect.map((error) => error as UnsafeIdError)
        )
      for (const videoId of ["../../x/y", "/etc", "a\\b", "..", "v\u0000"]) {
        const error = yield* refused({ ...good, questionId: "t-1", videoId })
        assert.strictEqual(error._tag, "UnsafeIdError")
        assert.match(
          error.message,
          /^question "t-1": videoID ".*" (contains a path separator|names a directory, not a video|contains a NUL byte) — a videoID names one folder under --trees: fix the question file$/
        )
      }
      const byId = yield* refused({ ...good, questionId: "../q" })
      assert.strictEqual(
        byId.message,
        `question id "../q" contains a path separator — ids are names, not paths: fix the question file`
      )
    }))

  it.scoped("interrupting stops new work, keeps finished questions and marks the run interrupted", () =>
    Effect.gen(function*() {
      // Each model call waits at a gate the test opens; the test learns of each call as it starts.
      const { context, started, store } = yield* gatedContext()
      const questions = yield* sampleQuestions
      const pack = yield* prompts
      const fiber = yield* Effect.fork(
        Benchmark.runBenchmark({ treesDir: samplesTrees, questions, prompts: pack, runId: "r3", concurrency: 2 }).pipe(
          Effect.provide(context)
        )
      )
      // The first two questions (one call each) are answered. A worker saves its question before it
      // starts the next, so once the next two calls have started, exactly two are finished; those two
      // calls stay open when the run is stopped.
      for (const gate of yield* Queue.takeN(started, 2)) yield* Deferred.succeed(gate, undefined)
      yield* Queue.takeN(started, 2)
      yield* Fiber.interrupt(fiber)
      const run = yield* store.getRun("r3")
      assert.strictEqual(Option.getOrThrow(run).status, "interrupted")
      const kept = yield* store.finishedQuestionIds("r3")
      assert.strictEqual(kept.size, 2)
    }))

  it.scoped("bad input fails before the run starts", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const layer = storeLayer(
        join(dir, "runs.db"),
        Layer.mergeAll(Testing.ScriptedLlm.layer(() => submitting("A")), Testing.ScriptedVlm.layer(() => "-"))
      )
      const questions = yield* sampleQuestions
      const pack = yield* prompts
      const missing = yield* Effect.flip(
        Benchmark.runBenchmark({ treesDir: join(dir, "none"), questions, prompts: pack }).pipe(Effect.provide(layer))
      )
      assert.instanceOf(missing, Benchmark.InferError)
      assert.strictEqual((missing as Benchmark.InferError).reason, "TreesMissing")
      const nothing = yield* Effect.flip(
        Benchmark.runBenchmark({ treesDir: samplesTrees, questions: [], prompts: pack }).pipe(Effect.provide(layer))
      )
      assert.strictEqual((nothing as Benchmark.InferError).reason, "NoQuestions")
      const resumeNothing = yield* Effect.flip(
        Benchmark.runBenchmark({ treesDir: samplesTrees, questions, prompts: pack, resume: true }).pipe(
          Effect.provide(layer)
        )
      )
      assert.strictEqual((resumeNothing as Benchmark.InferError).reason, "NothingToResume")
      const runsAfter = yield* Effect.flatMap(Store.RunStore, (store) => store.listRuns).pipe(Effect.provide(layer))
      assert.strictEqual(runsAfter.length, 0)
    }))

  it.scoped("on a shared store, reports the whole run's progress: every worker's saves and the live workers", () =>
    Effect.gen(function*() {
      // Each model call waits at a gate the test opens, so the run is mid-question when it looks.
      const { context, started, store } = yield* gatedContext("many")
      const questions = (yield* sampleQuestions).slice(0, 4)
      const events = yield* Queue.unbounded<Benchmark.BenchmarkEvent>()
      const fiber = yield* Effect.fork(
        Benchmark.runBenchmark({
          treesDir: samplesTrees,
          questions,
          prompts: yield* prompts,
          runId: "shared",
          concurrency: 1,
          onEvent: (event) => Queue.offer(events, event)
        }).pipe(Effect.provide(context))
      )
      // This worker is on its first question; another worker joins and saves two of the others.
      const first = yield* Queue.take(started)
      const other = { ownerId: "other:2:bbbb", host: "other", pid: 2 }
      yield* store.claimRun({ runId: "shared", owner: other, leaseMs: 60_000 })
      const theirs = yield* store.claimQuestions("shared", other.ownerId, 2)
      assert.strictEqual(theirs.questionIds.length, 2)
      for (const questionId of theirs.questionIds) {
        yield* store.saveQuestion("shared", { prediction: prediction({ questionId }), steps: [], calls: [] }, {
          ownerId: other.ownerId
        })
      }
      yield* TestClock.adjust("5 seconds")
      let event = yield* Queue.take(events)
      while (event._tag !== "RunProgress") event = yield* Queue.take(events)
      assert.deepStrictEqual(event, { _tag: "RunProgress", done: 2, total: 4, workers: 2 })

      yield* Deferred.succeed(first, undefined)
      yield* Deferred.succeed(yield* Queue.take(started), undefined)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual([result.answered, result.status], [2, "completed"])
      const run = Option.getOrThrow(yield* store.getRun("shared"))
      assert.deepStrictEqual(run.progress, { total: 4, done: 4, claimed: 0 })
    }))

  describe("a dead endpoint", () => {
    const refused = new Providers.ProviderError({
      provider: "llm",
      reason: "Transport",
      message: "llm: connection failed (connect ECONNREFUSED 127.0.0.1:9)"
    })
    // Tree loading and the store are real I/O the TestClock does not drive: a real tick, then a second.
    const realTick = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    const drive = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
      Effect.gen(function*() {
        for (let i = 0; i < 100_000 && fiber.unsafePoll() === null; i++) {
          yield* realTick
          yield* TestClock.adjust("1 second")
        }
        return yield* Fiber.await(fiber)
      })

    it.scoped("stops the run after 8 unreachable calls in a row: failed, one line naming the role and the variable, saved questions kept", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const all = yield* sampleQuestions
        const llm = yield* Testing.ScriptedLlm.make(() => refused)
        const layer = storeLayer(join(dir, "runs.db"), Layer.mergeAll(llm.layer, Testing.ScriptedVlm.layer(() => "-")))
        const fiber = yield* Benchmark.runBenchmark({
          treesDir: samplesTrees,
          questions: all,
          prompts: yield* prompts,
          runId: "dead",
          concurrency: 2
        }).pipe(Effect.provide(layer), Effect.fork)
        const exit = yield* drive(fiber)
        const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
        assert.instanceOf(error, Benchmark.InferError)
        assert.strictEqual((error as Benchmark.InferError).reason, "EndpointUnreachable")
        assert.strictEqual(
          (error as Benchmark.InferError).message,
          "the agent model endpoint ScriptedLlm cannot be reached: 8 calls in a row failed " +
            "(llm: connection failed (connect ECONNREFUSED 127.0.0.1:9)) — start the server or fix " +
            "VTREE_LLM_BASE_URL; run dead stopped (finished questions are saved: continue with --resume --run-id dead)"
        )
        // The first two questions spent their three tries (at 0, 20 and 60 s) and were saved as errors; the
        // next two failed once each, the 7th and 8th failures in a row: the run stopped there, not 4 × 60 s on.
        assert.strictEqual((yield* llm.requests).length, 8)
        assert.isBelow(yield* TestClock.currentTimeMillis, 80_000)
        const loaded = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("dead")).pipe(
          Effect.provide(layer)
        )
        assert.strictEqual(loaded.run.status, "failed")
        assert.deepStrictEqual(loaded.predictions.map((p) => p.stopReason), ["error", "error"])
      }))

    it.scoped("with breakerCalls 0 the breaker is off: every question ends in error and the run completes", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const all = (yield* sampleQuestions).slice(0, 4)
        const llm = yield* Testing.ScriptedLlm.make(() => refused)
        const layer = storeLayer(join(dir, "runs.db"), Layer.mergeAll(llm.layer, Testing.ScriptedVlm.layer(() => "-")))
        const fiber = yield* Benchmark.runBenchmark({
          treesDir: samplesTrees,
          questions: all,
          prompts: yield* prompts,
          runId: "off",
          concurrency: 4,
          breakerCalls: 0
        }).pipe(Effect.provide(layer), Effect.fork)
        const exit = yield* drive(fiber)
        assert.isTrue(Exit.isSuccess(exit))
        const loaded = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("off")).pipe(
          Effect.provide(layer)
        )
        assert.strictEqual(loaded.run.status, "completed")
        assert.deepStrictEqual(loaded.predictions.map((p) => p.stopReason), ["error", "error", "error", "error"])
        assert.strictEqual((yield* llm.requests).length, 12)
      }))
  })

  describe("one owner per run", () => {
    const owner = { ownerId: "test-host:1:abcd", host: "test-host", pid: 1 }

    /** One question that takes ten minutes of TestClock time to answer, run in the background. */
    const slowRun = (dir: string) =>
      Effect.gen(function*() {
        const [question] = (yield* sampleQuestions) as [Questions.Question]
        const llm = yield* Testing.ScriptedLlm.make(() => submitting("A"), { latency: "10 minutes" })
        const layer = storeLayer(join(dir, "runs.db"), Layer.mergeAll(llm.layer, Testing.ScriptedVlm.layer(() => "-")))
        const context = yield* Layer.build(layer)
        const fiber = yield* Benchmark.runBenchmark({
          treesDir: samplesTrees,
          questions: [question],
          prompts: yield* prompts,
          runId: "slow",
          owner,
          leaseMs: 60_000
        }).pipe(Effect.provide(context), Effect.fork)
        const store = Effect.provide(Store.RunStore, context)
        const sql = Effect.provide(SqlClient.SqlClient, context)
        // The run reads its trees from disk (real I/O the TestClock does not drive) before the question
        // starts and the heartbeat runs: wait, in real time, for the first model request.
        const realTick = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
        let ticks = 0
        while ((yield* llm.requests).length === 0) {
          if (++ticks > 20_000) return yield* Effect.dieMessage("the slow run never asked its first question")
          yield* realTick
        }
        return { fiber, store, sql }
      })

    const settle = Effect.repeatN(Effect.yieldNow(), 50)

    it.scoped("heartbeats keep the lease live through a long question; the end releases it", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const { fiber, store } = yield* slowRun(dir)
        for (let minute = 0; minute < 9; minute++) {
          yield* TestClock.adjust("20 seconds")
          yield* settle
          yield* TestClock.adjust("20 seconds")
          yield* settle
          yield* TestClock.adjust("20 seconds")
          yield* settle
          const run = Option.getOrThrow(yield* (yield* store).getRun("slow"))
          assert.strictEqual(run.status, "running", `minute ${minute + 1}`)
          assert.strictEqual(run.claim?.ownerId, owner.ownerId)
        }
        yield* TestClock.adjust("2 minutes")
        const result = yield* Fiber.join(fiber)
        assert.strictEqual(result.answered, 1)
        const run = Option.getOrThrow(yield* (yield* store).getRun("slow"))
        assert.deepStrictEqual([run.status, run.claim ?? null], ["completed", null])
      }))

    it.scoped("a run whose lease was taken over stops writing and leaves the new owner's status alone", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const { fiber, sql, store } = yield* slowRun(dir)
        yield* TestClock.adjust("5 seconds")
        yield* settle
        // Another process took the run over (as after a pause longer than the lease).
        const client = yield* sql
        yield* client`UPDATE run_claims SET owner_id = 'other:2:zzzz', expires_at = expires_at + 3600000`
        yield* TestClock.adjust("25 seconds")
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
        assert.strictEqual((error as { reason?: string } | undefined)?.reason, "ClaimLost")
        const loaded = yield* (yield* store).loadRun("slow")
        assert.deepStrictEqual([loaded.run.status, loaded.run.claim?.ownerId, loaded.predictions.length], [
          "running",
          "other:2:zzzz",
          0
        ])
      }))
  })
})
