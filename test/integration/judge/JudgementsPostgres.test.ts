// The judgement store and `vtree judge` on PostgreSQL: migration 0012 there (llm_calls takes the judge role),
// verdicts, the cache, and a second judging that makes no call.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import * as JudgementRepository from "../../../src/layers/sql/JudgementRepository.js"
import * as PgRunStore from "../../../src/layers/sql/postgres/PgRunStore.js"
import { JudgementStore } from "../../../src/services/JudgementStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { call, prediction } from "../../support/harness/RunRows.js"
import * as Sim from "../../support/openai-sim/index.js"
import { useCluster } from "../../support/postgres/vitest.js"

const cluster = useCluster()
const stores = (url: string) =>
  Layer.provideMerge(JudgementRepository.layer("pg"), PgRunStore.layer({ url: Redacted.make(url) }))

describe("judgements on PostgreSQL", () => {
  it.scoped("stores verdicts and judge calls, and vtree judge asks nothing the second time", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(() => cluster.database("judge"))
      yield* Effect.gen(function*() {
        const runs = yield* RunStore
        const judgements = yield* JudgementStore
        yield* runs.startRun({ runId: "r1", config: {}, startedAt: 1_000 })
        yield* runs.saveQuestion("r1", {
          prediction: prediction({ questionId: "q1", options: [], answer: "Paris", prediction: "In Paris." }),
          steps: [],
          calls: []
        })
        yield* runs.finishRun("r1", "completed", 2_000)
        yield* runs.saveRunCalls("r1", [call({ role: "judge", model: "j", parentStep: null })])
        assert.deepStrictEqual((yield* runs.loadRun("r1")).calls.map((c) => c.role), ["judge"])
        assert.deepStrictEqual(yield* judgements.judgements("r1"), [])
        assert.isTrue(Option.isNone(yield* judgements.cached("nothing")))
      }).pipe(Effect.provide(stores(url)), Effect.scoped)

      const sim = yield* Effect.acquireRelease(
        Effect.promise(() =>
          Sim.start({ chat: { judge: () => ({ content: "{\"verdict\": \"correct\", \"reason\": \"Paris\"}" }) } })
        ),
        (sim) => Effect.promise(() => sim.close())
      )
      const env = { VTREE_JUDGE_BASE_URL: sim.url, VTREE_JUDGE_MODEL: "judge" }
      const first = yield* Effect.promise(() => runCli(["judge", "--db", url], env))
      assert.strictEqual(first.code, 0, first.stderr)
      const second = yield* Effect.promise(() => runCli(["judge", "--db", url], env))
      assert.include(second.stdout, "1 judgements (0 asked, 1 from the cache, 0 judge failures)")
      assert.strictEqual(sim.requests.length, 1)
      const stored = yield* Effect.flatMap(JudgementStore, (store) => store.judgements("r1")).pipe(
        Effect.provide(stores(url)),
        Effect.scoped
      )
      assert.deepStrictEqual(stored.map((j) => [j.questionId, j.judgeModel, j.verdict, j.reason, j.cached]), [
        ["q1", "judge", "correct", "Paris", true]
      ])
    }))
})
