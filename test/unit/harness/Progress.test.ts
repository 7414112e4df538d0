import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { Benchmark, Store } from "../../../src/index.js"
import {
  applyEvent,
  compactCount,
  describeProgress,
  initialState,
  makeProgress,
  renderBar
} from "../../../src/programs/harness/Progress.js"

const row = (
  questionId: string,
  correct: boolean,
  stopReason: Store.PredictionRow["stopReason"] = "finished"
): Store.PredictionRow => ({
  questionId,
  videoId: "v",
  taskType: "Counting Problem",
  duration: "short",
  question: "q",
  options: ["A. a", "B. b"],
  answer: "A",
  prediction: correct ? "A" : "B",
  correct,
  evidence: null,
  reasoning: null,
  stepsUsed: 3,
  stopReason,
  error: null,
  promptTokens: 900,
  completionTokens: 100,
  startedAt: 0,
  finishedAt: 0
})

const started: Benchmark.BenchmarkEvent = { _tag: "RunStarted", runId: "r", resumed: true, total: 10, alreadyDone: 2 }
const finished = (
  id: string,
  correct: boolean,
  stop?: Store.PredictionRow["stopReason"]
): Benchmark.BenchmarkEvent => ({
  _tag: "QuestionFinished",
  row: row(id, correct, stop),
  calls: 4
})

describe("progress", () => {
  it("counts done, accuracy, errors and tokens; ETA from this invocation's pace", () => {
    let state = applyEvent(initialState(), started, 1_000)
    state = applyEvent(state, finished("1", true), 3_000)
    state = applyEvent(state, finished("2", false, "error"), 5_000)
    assert.strictEqual(
      describeProgress(state, 5_000),
      "4/10 · acc 50.0% · errors 1 · tokens 2.0k · elapsed 4s · ETA 12s"
    )
  })

  it("on a shared run, counts every worker's saves from the store; accuracy stays this worker's own", () => {
    let state = applyEvent(initialState(), started, 1_000)
    state = applyEvent(state, finished("1", true), 3_000)
    // The store says 6 of 10 are saved by 3 workers: 2 before this worker started, 1 by it, 3 by others.
    state = applyEvent(state, { _tag: "RunProgress", done: 6, total: 10, workers: 3 }, 5_000)
    assert.strictEqual(
      describeProgress(state, 5_000),
      "6/10 · 3 workers (1 here) · acc 100.0% · tokens 1.0k · elapsed 4s · ETA 4s"
    )
    // A report older than this worker's own latest saves never moves the count back.
    state = applyEvent(state, finished("2", true), 6_000)
    state = applyEvent(state, { _tag: "RunProgress", done: 5, total: 10, workers: 1 }, 6_000)
    assert.match(describeProgress(state, 6_000), /^7\/10 · acc 100\.0%/)
  })

  it("says the database is unreachable while the store retries, until the next save or report", () => {
    let state = applyEvent(initialState(), started, 1_000)
    state = applyEvent(state, finished("1", true), 3_000)
    state = applyEvent(state, { _tag: "StoreUnreachable", database: "postgres://vtree:***@db/runs" }, 4_000)
    assert.match(describeProgress(state, 4_000), /^database unreachable, retrying · 3\/10 · /)
    state = applyEvent(state, finished("2", true), 9_000)
    assert.match(describeProgress(state, 9_000), /^4\/10 · /)
  })

  it("accuracy is over the keyed questions only, as in the report; — when none is keyed", () => {
    const unkeyed = (id: string): Benchmark.BenchmarkEvent => ({
      _tag: "QuestionFinished",
      row: { ...row(id, false), answer: null, prediction: "C" },
      calls: 4
    })
    const unanswered: Benchmark.BenchmarkEvent = {
      _tag: "QuestionFinished",
      row: { ...row("4", false), prediction: null },
      calls: 4
    }
    // EgoSchema with --answers: 2 of the 3 keyed right, one question outside the keys.
    let state = applyEvent(initialState(), started, 1_000)
    for (const event of [finished("1", true), finished("2", true), unanswered, unkeyed("3")]) {
      state = applyEvent(state, event, 2_000)
    }
    assert.match(describeProgress(state, 2_000), / · acc 66\.7% · /)
    // MLVU's test split: nothing keyed, nothing to divide.
    let test = applyEvent(initialState(), started, 1_000)
    test = applyEvent(test, unkeyed("1"), 2_000)
    test = applyEvent(test, unkeyed("2"), 2_000)
    assert.match(describeProgress(test, 2_000), / · acc — · /)
  })

  it("shows the USD spent when every question's calls are priced, and nothing when not", () => {
    const priced = (id: string, costUsd: number | null): Benchmark.BenchmarkEvent => ({
      _tag: "QuestionFinished",
      row: row(id, true),
      calls: 4,
      costUsd
    })
    let state = applyEvent(initialState(), started, 1_000)
    state = applyEvent(state, priced("1", 0.0125), 2_000)
    state = applyEvent(state, priced("2", 0.5), 3_000)
    assert.strictEqual(
      describeProgress(state, 3_000),
      "4/10 · acc 100.0% · tokens 2.0k · $0.5125 · elapsed 2s · ETA 6s"
    )
    // One question with a role nobody priced: the sum would understate the bill, so none is shown.
    state = applyEvent(state, priced("3", null), 3_000)
    assert.notInclude(describeProgress(state, 3_000), "$")
    assert.notInclude(
      describeProgress(applyEvent(applyEvent(initialState(), started, 0), finished("1", true), 0), 0),
      "$"
    )
  })

  it("formats counts compactly", () => {
    assert.deepStrictEqual([compactCount(999), compactCount(1_250), compactCount(3_456_789)], ["999", "1.3k", "3.5M"])
  })

  it("draws a bar that never wraps the terminal", () => {
    const state = applyEvent(applyEvent(initialState(), started, 0), finished("1", true), 1_000)
    const bar = renderBar(state, 1_000, 80)
    assert.match(bar, /^\[#{6}-{14}\] 3\/10 · acc 100\.0%/)
    assert.isBelow(renderBar(state, 1_000, 30).length, 30)
  })

  it.scoped("off a terminal, writes a line every N questions and on a quiet period", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const progress = yield* makeProgress({ write: (text) => lines.push(text), isTTY: false }, {
        everyQuestions: 2,
        everyMs: 10_000
      })
      yield* progress.onEvent(started)
      yield* progress.onEvent(finished("1", true))
      yield* progress.onEvent(finished("2", true))
      assert.strictEqual(lines.length, 2)
      assert.match(lines[1]!, /^vtree: run r: 4\/10 · acc 100\.0%/)
      yield* TestClock.adjust("11 seconds")
      assert.strictEqual(lines.length, 3)
      yield* progress.onEvent(finished("3", false))
      yield* progress.finish
      assert.match(lines.at(-1)!, /5\/10 · acc 66\.7%/)
      assert.isTrue(lines.every((line) => line.endsWith("\n")))
      assert.isFalse(lines.some((line) => line.includes("\r")))
    }))

  it.scoped("on a terminal, redraws one line in place and ends it on finish", () =>
    Effect.gen(function*() {
      let out = ""
      const progress = yield* makeProgress({ write: (text) => (out += text), isTTY: true, columns: 100 })
      yield* progress.onEvent(started)
      yield* progress.onEvent(finished("1", true))
      yield* progress.finish
      assert.strictEqual(out.split("\n").length, 2)
      assert.match(out, /\r\x1b\[2K\[.*\] 3\/10 · acc 100\.0%/)
    }))
})
