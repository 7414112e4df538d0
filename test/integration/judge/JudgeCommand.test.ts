// `vtree judge` through the CLI run in-process against openai-sim with scripted judges: verdicts stored per
// judge, the cache that makes judging the same answers again cost no call, re-scoring with another judge,
// a judge reply that is not JSON counted as a judge failure, and what the report makes of it all.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import type { JudgementRow } from "../../../src/domain/Judgement.js"
import * as JudgementRepository from "../../../src/layers/sql/JudgementRepository.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { JudgementStore } from "../../../src/services/JudgementStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { tempDir } from "../../support/harness/Cli.js"
import { prediction } from "../../support/harness/RunRows.js"
import * as Sim from "../../support/openai-sim/index.js"

/** Three answered open-ended questions, one left unanswered, and one multiple-choice question judges never see. */
const fill = (file: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    yield* store.startRun({ runId: "r1", config: {}, startedAt: 1_000 })
    const open = (questionId: string, question: string, reference: string, answer: string | null) =>
      store.saveQuestion("r1", {
        prediction: prediction({
          questionId,
          question,
          options: [],
          answer: reference,
          prediction: answer,
          correct: false
        }),
        steps: [],
        calls: []
      })
    yield* open("q1", "Which city is the tower in?", "Paris", "It stands in Paris, France.")
    yield* open("q2", "What colour is the car?", "red", "The car is blue.")
    yield* open("q3", "Who opens the door?", "the chef", "The chef opens it.")
    yield* open("q5", "What falls at the end?", "the curtain", null)
    yield* store.saveQuestion("r1", { prediction: prediction({ questionId: "q4" }), steps: [], calls: [] })
    yield* store.finishRun("r1", "completed", 9_000)
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))

const verdictsOf = (file: string) =>
  Effect.flatMap(JudgementStore, (store) => store.judgements("r1")).pipe(
    Effect.provide(JudgementRepository.layer(file).pipe(Layer.provide(SqliteRunStore.layer({ filename: file }))))
  )

/** Which question a judge prompt is about, by the candidate answer it quotes. */
const about = (request: Sim.SimRequest): "q1" | "q2" | "q3" => {
  const text = Sim.promptText(request.body)
  return text.includes("Paris, France") ? "q1" : text.includes("is blue") ? "q2" : "q3"
}
const json = (verdict: string, reason: string) => ({ content: JSON.stringify({ verdict, reason }) })

const judges: Record<string, Sim.Script<Sim.ChatReply>> = {
  // Right by the reference: correct, incorrect, correct.
  "judge-a": (request) =>
    ({
      q1: json("correct", "Paris is named"),
      q2: json("incorrect", "blue is not red"),
      q3: json("correct", "the chef")
    })[about(request)],
  // Lenient, and in the loose shapes models write: a think block, a fence, a JSON object cut short.
  "judge-b": (request) =>
    ({
      q1: { content: "<think>same city</think>\n{\"verdict\": \"Correct\", \"reason\": \"same city\"}" },
      q2: { content: "```json\n{\"verdict\": \"correct\", \"reason\": \"a colour is given\"}\n```" },
      q3: { content: "{\"verdict\": \"incorrect\", \"reason\": \"no door" }
    })[about(request)],
  // Answers one question in prose: a judge failure, never a crash.
  "judge-c": (request) =>
    ({
      q1: { content: "I would say this one is correct." },
      q2: json("incorrect", "blue is not red"),
      q3: json("correct", "the chef")
    })[about(request)]
}

const judgeEnv = (url: string, models: string) => ({
  VTREE_JUDGE_BASE_URL: url,
  VTREE_JUDGE_MODEL: models,
  VTREE_JUDGE_PRICE: "1,2",
  VTREE_PROVIDER_RETRIES: "0"
})

describe("vtree judge", () => {
  it.scoped("judges open-ended answers with each judge, then from the cache, then re-scores with another judge", () =>
    Effect.gen(function*() {
      const sim = yield* Effect.acquireRelease(
        Effect.promise(() => Sim.start({ chat: judges })),
        (sim) => Effect.promise(() => sim.close())
      )
      const temp = yield* Effect.acquireRelease(Effect.sync(tempDir), (temp) => Effect.sync(temp.cleanup))
      const db = path.join(temp.dir, "runs.db")
      yield* fill(db)
      const vtree = (args: ReadonlyArray<string>, models: string) =>
        Effect.promise(() => runCli(args, judgeEnv(sim.url, models)))

      const first = yield* vtree(["judge", "--db", db], "judge-a,judge-b")
      assert.strictEqual(first.code, 0, first.stderr)
      assert.include(
        first.stdout,
        "Run r1: 3 open-ended answers, 6 judgements (6 asked, 0 from the cache, 0 judge failures)"
      )
      assert.include(first.stderr, "judged 6/6")
      assert.strictEqual(sim.requests.length, 6)
      // Temperature 0 by default, so a verdict repeats.
      assert.isTrue(sim.requests.every((r) => r.body["temperature"] === 0))
      const afterFirst = yield* verdictsOf(db)
      assert.deepStrictEqual(
        afterFirst.map((v) => [v.questionId, v.judgeModel, v.verdict]),
        [
          ["q1", "judge-a", "correct"],
          ["q1", "judge-b", "correct"],
          ["q2", "judge-a", "incorrect"],
          ["q2", "judge-b", "correct"],
          ["q3", "judge-a", "correct"],
          ["q3", "judge-b", "incorrect"]
        ]
      )
      assert.isTrue(afterFirst.every((v) => !v.cached && v.promptTokens > 0 && v.costUsd !== null && v.costUsd > 0))

      // The same answers, judges and prompt again: every verdict from the cache, no call.
      const again = yield* vtree(["judge", "--db", db, "--run-id", "r1"], "judge-a,judge-b")
      assert.strictEqual(again.code, 0, again.stderr)
      assert.include(again.stdout, "6 judgements (0 asked, 6 from the cache, 0 judge failures)")
      assert.strictEqual(sim.requests.length, 6)
      const cached = yield* verdictsOf(db)
      assert.deepStrictEqual(cached.map((v) => v.verdict), afterFirst.map((v) => v.verdict))
      assert.isTrue(cached.every((v) => v.cached && v.costUsd === 0))

      // Another judge re-scores the run; its reply in prose is a judge failure, counted, not a crash.
      const other = yield* vtree(["judge", "--db", db, "--concurrency", "2"], "judge-c")
      assert.strictEqual(other.code, 0, other.stderr)
      assert.include(other.stdout, "3 judgements (3 asked, 0 from the cache, 1 judge failures)")
      assert.strictEqual(sim.requests.length, 9)
      const all = yield* verdictsOf(db)
      const failed = all.find((v) => v.judgeModel === "judge-c" && v.questionId === "q1") as JudgementRow
      assert.isNull(failed.verdict)
      assert.include(failed.reason, "held no JSON object")
      assert.strictEqual(all.length, 9)

      const report = yield* vtree(["report", "--db", db, "--format", "json"], "judge-c")
      assert.strictEqual(report.code, 0, report.stderr)
      const summary = JSON.parse(report.stdout)
      const judged = summary.judges
      assert.strictEqual(judged.openEnded, 4)
      assert.deepStrictEqual(
        judged.judges.map((j: any) => [j.judge, j.correct, j.wrong, j.unscored, j.failed]),
        [["judge-a", 2, 2, 0, 0], ["judge-b", 2, 2, 0, 0], ["judge-c", 1, 2, 1, 1]]
      )
      // q1 correct (a, b; c failed), q2 incorrect (a, c over b), q3 correct (a, c over b), q5 never answered.
      assert.deepStrictEqual([judged.majority.correct, judged.majority.wrong, judged.majority.unscored], [2, 2, 0])
      assert.strictEqual(judged.ties, 0)
      assert.deepStrictEqual(
        judged.agreement.pairs.map((p: any) => [p.a, p.b, p.agree, p.compared]),
        [["judge-a", "judge-b", 1, 3], ["judge-a", "judge-c", 2, 2], ["judge-b", "judge-c", 0, 2]]
      )
      assert.strictEqual(judged.agreement.items, 2)
      // The judges' calls are a role of their own: 9 made, the cached ones none.
      const role = summary.tokens.byRole.find((r: any) => r.role === "judge")
      assert.strictEqual(role.calls, 9)
      assert.isNotNull(summary.cost.byRole.find((r: any) => r.role === "judge").usd)

      const text = yield* vtree(["report", "--db", db], "judge-c")
      assert.include(text.stdout, "Open-ended answers judged (4 questions)")
      assert.include(text.stdout, "judge-a / judge-b 33.3% (1/3)")
    }))

  it.scoped("two judges that split evenly state a tie, scored by neither side", () =>
    Effect.gen(function*() {
      const sim = yield* Effect.acquireRelease(
        Effect.promise(() => Sim.start({ chat: judges })),
        (sim) => Effect.promise(() => sim.close())
      )
      const temp = yield* Effect.acquireRelease(Effect.sync(tempDir), (temp) => Effect.sync(temp.cleanup))
      const db = path.join(temp.dir, "runs.db")
      yield* fill(db)
      const judged = yield* Effect.promise(() => runCli(["judge", "--db", db], judgeEnv(sim.url, "judge-a,judge-b")))
      assert.strictEqual(judged.code, 0, judged.stderr)
      const report = yield* Effect.promise(() =>
        runCli(["report", "--db", db, "--format", "json"], judgeEnv(sim.url, "judge-a"))
      )
      const summary = JSON.parse(report.stdout).judges
      // q2 and q3 split 1–1: ties, unscored; q1 correct; q5 never answered.
      assert.strictEqual(summary.ties, 2)
      assert.deepStrictEqual([summary.majority.correct, summary.majority.wrong, summary.majority.unscored], [1, 1, 2])
      assert.closeTo(summary.agreement.fleissKappa, -0.5, 1e-12)
    }))

  it.scoped("refuses with one line when the judge is not configured or the run has nothing open-ended", () =>
    Effect.gen(function*() {
      const temp = yield* Effect.acquireRelease(Effect.sync(tempDir), (temp) => Effect.sync(temp.cleanup))
      const db = path.join(temp.dir, "runs.db")
      yield* fill(db)
      const unset = yield* Effect.promise(() => runCli(["judge", "--db", db], {}))
      assert.strictEqual(unset.code, 1)
      assert.include(unset.stderr, "vtree: the judge is not configured: set VTREE_JUDGE_MODEL")
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        yield* store.startRun({ runId: "mc", config: {}, startedAt: 50_000 })
        yield* store.saveQuestion("mc", { prediction: prediction({ questionId: "q1" }), steps: [], calls: [] })
      }).pipe(Effect.provide(SqliteRunStore.layer({ filename: db })))
      const nothing = yield* Effect.promise(() =>
        runCli(["judge", "--db", db], { VTREE_JUDGE_BASE_URL: "http://127.0.0.1:9/v1", VTREE_JUDGE_MODEL: "j" })
      )
      assert.strictEqual(nothing.code, 1)
      assert.include(nothing.stderr, "run mc holds no answered open-ended question")
    }))
})
