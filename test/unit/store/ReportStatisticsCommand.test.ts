import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { RunStore } from "../../../src/services/RunStore.js"
import { runCli } from "../../support/cli/InProcess.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"
import { scopedTempDir } from "../../support/TempDir.js"

const tempDir = scopedTempDir("report-stats")

const vtree = (args: ReadonlyArray<string>, cwd: string) => Effect.promise(() => runCli(args, {}, { cwd }))

/** Runs r1–r3 over six questions of three videos: r1 right on videos 0, r2 on 0 and 1, r3 on all. */
const fill = (file: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    for (const [runId, rightVideos] of [["r1", 1], ["r2", 2], ["r3", 3]] as const) {
      yield* store.startRun({ runId, config: {}, startedAt: 0 })
      for (let i = 0; i < 6; i++) {
        const video = Math.floor(i / 2)
        const right = video < rightVideos
        yield* store.saveQuestion(runId, {
          prediction: prediction({
            questionId: `q${i}`,
            videoId: `v${video}`,
            prediction: right ? "B" : "C",
            correct: right,
            startedAt: 0,
            finishedAt: 1_000 * (i + 1)
          }),
          steps: [step(1, { tool: "observe_frame", args: { node_ids: ["v_L1_000_L2_000_L3_000"] } })],
          calls: [
            call({ questionId: `q${i}`, parentStep: 1 }),
            call({ questionId: `q${i}`, role: "vlm", parentStep: 1 })
          ]
        })
      }
      yield* store.finishRun(runId, "completed", 10_000)
    }
  }).pipe(Effect.provide(SqliteRunStore.layer({ filename: file })))

describe("vtree report: clustered statistics, bootstrap, repeats and cost", () => {
  it.scoped("--compare states the paired bootstrap with --bootstrap and --seed, the same seed giving the same result", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const text = yield* vtree(["report", "--compare", "r1", "r3", "--bootstrap", "300", "--seed", "7"], dir)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.include(text.stdout, "Paired bootstrap over videos (300 resamples, seed 7): 3 videos, B − A +66.7 pts")
      assert.include(text.stdout, "B − A per category, paired bootstrap over videos (300 resamples, seed 7)")
      const args = ["report", "--compare", "r1", "r3", "--format", "json", "--seed", "7"]
      const once = yield* vtree(args, dir)
      const again = yield* vtree(args, dir)
      assert.strictEqual(once.code, 0, once.stderr)
      const json = JSON.parse(once.stdout)
      assert.deepStrictEqual([json.bootstrap.resamples, json.bootstrap.seed], [2000, 7])
      assert.deepStrictEqual(JSON.parse(again.stdout).bootstrap, json.bootstrap)
      assert.strictEqual(json.cost.metrics.find((m: { metric: string }) => m.metric === "vlmCalls").a.p50, 1)
      const bad = yield* vtree(["report", "--compare", "r1", "r3", "--bootstrap", "0"], dir)
      assert.strictEqual(bad.code, 1)
      assert.include(bad.stderr, "--bootstrap 0: expected a whole number ≥ 1")
    }))

  it.scoped("--repeats gives each run's accuracy, mean, SD, range and agreement; refuses one run and html", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const text = yield* vtree(["report", "--repeats", "r1", "r2", "r3"], dir)
      assert.strictEqual(text.code, 0, text.stderr)
      assert.include(text.stdout, "Repeats: 3 runs over the 6 questions every run saved")
      assert.include(text.stdout, "Mean 66.7% · SD 33.3 pts · min–max 33.3%–100.0%")
      assert.include(text.stdout, "Answered the same by every run: 33.3% (2/6)")
      const json = yield* vtree(["report", "--repeats", "r1", "vtree.db#r2", "--format", "json"], dir)
      assert.strictEqual(json.code, 0, json.stderr)
      assert.deepStrictEqual(JSON.parse(json.stdout).runs.map((r: { correct: number }) => r.correct), [2, 4])
      const one = yield* vtree(["report", "--repeats", "r1"], dir)
      assert.strictEqual(one.code, 1)
      assert.include(one.stderr, "--repeats needs two or more different runs")
      const html = yield* vtree(["report", "--repeats", "r1", "r2", "--format", "html"], dir)
      assert.include(html.stderr, "--repeats: writes text or json")
      const both = yield* vtree(["report", "--repeats", "--compare", "r1", "r2"], dir)
      assert.include(both.stderr, "--compare and --repeats: pick one")
    }))

  it.scoped("the json report carries the clustered interval, the cost distribution and each question's usage", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* fill(path.join(dir, "vtree.db"))
      const json = yield* vtree(["report", "--run-id", "r2", "--format", "json"], dir)
      assert.strictEqual(json.code, 0, json.stderr)
      const summary = JSON.parse(json.stdout)
      assert.strictEqual(summary.clustered.videos, 3)
      assert.isTrue(summary.clustered.se > summary.clustered.plainSe)
      // The VLM call served an observe_frame step on one frame: the json, not only the page, counts it.
      assert.deepStrictEqual(
        [
          summary.perQuestion[0].vlmCalls,
          summary.perQuestion[0].framesSent,
          summary.perQuestion[0].toolCalls,
          summary.perQuestion[0].timeMs
        ],
        [1, 1, 0, 1_000]
      )
      const time = summary.costDistribution.overall.find((m: { metric: string }) => m.metric === "timeMs")
      assert.deepStrictEqual([time.p50, time.p90, time.max], [3_000, 6_000, 6_000])
      const text = yield* vtree(["report", "--run-id", "r2"], dir)
      assert.include(text.stdout, "Accuracy clustered: 95% CI")
      assert.include(text.stdout, "Cost per question over 6 questions")
    }))
})
