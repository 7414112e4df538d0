// A worker's queue on the TestClock, over a real SQLite store shared by two owners: it hands out its
// claims in file order, waits while another live worker holds the last question, takes that question
// over when the other's lease expires, and stops once the run has nothing left.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, TestClock } from "effect"
import * as path from "node:path"
import type { Question } from "../../../src/domain/Question.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { makeWorkQueue } from "../../../src/programs/harness/WorkQueue.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { advanceDatabaseClock, sqlOf } from "../../support/harness/DatabaseClock.js"
import { prediction } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const question = (questionId: string): Question => ({
  questionId,
  videoId: "vid1",
  taskType: "Counting Problem",
  duration: null,
  domain: null,
  question: `question ${questionId}?`,
  options: ["A. one", "B. two"],
  answer: "A"
})

const ownerA = { ownerId: "a:1:aaaa", host: "a", pid: 1 }
const ownerB = { ownerId: "b:2:bbbb", host: "b", pid: 2 }

describe("WorkQueue", () => {
  it.scoped("hands out claims in order, waits on another live worker's question, takes it over at its lease's end", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("queue")
      const layer = SqliteRunStore.layer({ filename: path.join(dir, "runs.db"), owners: "many" })
      const context = yield* Layer.build(layer)
      const store = context.unsafeMap.get(RunStore.key) as RunStore["Type"]
      const questions = ["q1", "q2", "q3"].map(question)
      yield* TestClock.setTime(1_000)
      yield* store.startRun({ runId: "r", config: {}, owner: ownerA, leaseMs: 10_000 })
      yield* store.planQuestions("r", questions.map((q) => q.questionId))
      yield* store.claimRun({ runId: "r", owner: ownerB, leaseMs: 10_000 })
      // q1 was saved without the queue; B takes q2 and then goes silent.
      yield* store.saveQuestion("r", { prediction: prediction({ questionId: "q1" }), steps: [], calls: [] })
      assert.deepStrictEqual((yield* store.claimQuestions("r", ownerB.ownerId, 1)).questionIds, ["q2"])

      const queue = yield* makeWorkQueue({
        runId: "r",
        ownerId: ownerA.ownerId,
        questions: new Map(questions.map((q) => [q.questionId, q])),
        batch: 8,
        poll: "1 second"
      }).pipe(Effect.provideService(RunStore, store))
      assert.deepStrictEqual(Option.map(yield* queue.take, (q) => q.questionId), Option.some("q3"))
      // Nothing claimable, but B's lease runs for 10 s by the database's clock: the worker waits.
      const waiting = yield* Effect.fork(queue.take)
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)))
      // B's lease ends at the database; the worker's next poll takes q2 over.
      yield* advanceDatabaseClock(sqlOf(context), 10_500)
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(Option.map(yield* Fiber.join(waiting), (q) => q.questionId), Option.some("q2"))
      // q2 and q3 are in this worker's hands and nothing else is open: the queue says so.
      assert.isTrue(Option.isNone(yield* queue.take))
    }))
})
