// The built CLI (`node dist/bin.js infer`) against openai-sim, stopped by signals: kill -9 then --resume;
// Ctrl-C (SIGINT), SIGTERM and SIGHUP → exit 130 whatever is in flight (model calls that never answer, a web page
// that never arrives or takes long to extract), then --resume. The e2e globalSetup builds dist/ first.
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  bin,
  countPredictions,
  endsWithin,
  leasesExpired,
  predictions,
  readDb,
  run,
  runs,
  simEnv,
  start,
  waitUntil
} from "../../support/harness/Cli.js"
import { startPageServer } from "../../support/harness/PageServer.js"
import { agentModel } from "../../support/harness/Policy.js"
import { assertFinishedOnce, inferArgs, resumeArgs, simRuns } from "../../support/harness/SimRuns.js"
import { nestedPage, slowToExtractPage } from "../../support/search/pages.js"

const { cleanups, questions, setup, startSim } = simRuns()

// How long a signalled run may take to end: far more than it needs, far less than anything in flight
// would take to end on its own (a stalled call never does; a page has a 10 s budget).
const signalBound = 8_000

describe("vtree infer (built CLI against openai-sim, signals)", () => {
  it("after kill -9 mid-run, --resume answers every question exactly once", async () => {
    const { db, sim } = await setup({ agentDelayMs: 150 })
    // A short lease, so the dead owner's claim expires within the test (test/e2e/harness/RunOwnership.test.ts covers the refusal).
    const lease = { VTREE_LEASE_MS: "1500" }
    const first = start(inferArgs(db, "--concurrency", "1"), simEnv(sim.url, lease))
    await waitUntil(() => countPredictions(db) >= 2)
    first.child.kill("SIGKILL")
    const killed = await first.done
    assert.strictEqual(killed.signal, "SIGKILL")
    const before = predictions(db)
    assert.isBelow(before.length, questions.length)
    assert.strictEqual(runs(db)[0]!.status, "running")
    await waitUntil(() => leasesExpired(db))

    sim.reset()
    const resumed = await run(inferArgs(db, "--resume"), simEnv(sim.url, lease))
    assert.strictEqual(resumed.code, 0, resumed.stderr)
    assertFinishedOnce(db, sim, questions, before)
    assert.match(resumed.stdout, /\(\d\/7\)/)
  }, 60_000)

  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    it(
      `on ${signal} with model calls that never answer: exit 130, run interrupted, finished questions kept, --resume asks the rest once`,
      async () => {
        // Four agent calls are answered (two workers: at least one question finishes), then every call
        // stalls, so the signal lands with two calls open that only cancelling can end.
        const { db, sim } = await setup({ stallAgentAfter: 4 })
        const running = start(inferArgs(db, "--concurrency", "2", "--run-id", "sig"), simEnv(sim.url))
        const stalled = () => sim.requests.filter((r) => r.model === agentModel).slice(4)
        await waitUntil(() => countPredictions(db) >= 1)
        await sim.waitFor(() => stalled().length === 2, 20_000)
        const saved = countPredictions(db)
        running.child.kill(signal)
        const result = await endsWithin(running, signalBound)
        assert.strictEqual(result.code, 130, result.stderr)
        assert.strictEqual(runs(db)[0]!.status, "interrupted")
        const kept = predictions(db)
        assert.isAtLeast(kept.length, saved)
        assert.isBelow(kept.length, questions.length)
        assert.isTrue(kept.every((row) => row.stop_reason === "finished"))
        assert.match(
          result.stderr,
          /interrupted — finished questions of run sig .*continue with `vtree infer --resume --run-id sig --db /
        )
        // The model calls in flight were cancelled, not left running (a stalled call never ends otherwise).
        await sim.waitFor(() => sim.inFlight === 0, 3_000)
        assert.isTrue(stalled().every((r) => r.aborted))

        const answering = await startSim()
        const resumed = await run(resumeArgs(db, "--run-id", "sig"), simEnv(answering.url))
        assert.strictEqual(resumed.code, 0, resumed.stderr)
        assertFinishedOnce(db, answering, questions, kept)
      },
      60_000
    )
  }

  it(
    "on Ctrl-C, the command it prints to continue works as printed: pasted into a shell elsewhere, it finishes the run",
    async () => {
      const { db, dir, sim } = await setup({ stallAgentAfter: 4 })
      const running = start(inferArgs(db, "--concurrency", "2", "--run-id", "hint"), simEnv(sim.url))
      await waitUntil(() => countPredictions(db) >= 1)
      await sim.waitFor(() => sim.requests.filter((r) => r.model === agentModel).length >= 6, 20_000)
      running.child.kill("SIGINT")
      const result = await endsWithin(running, signalBound)
      assert.strictEqual(result.code, 130, result.stderr)
      const kept = predictions(db)
      const hint = /continue with `([^`]+)`/.exec(result.stderr)?.[1]
      assert.strictEqual(hint, `vtree infer --resume --run-id hint --db ${db}`, result.stderr)

      // `vtree` on the PATH is the built CLI; the shell runs the line as printed, from another folder.
      const shims = join(dir, "bin")
      mkdirSync(shims)
      writeFileSync(join(shims, "vtree"), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`, { mode: 0o755 })
      const elsewhere = join(dir, "elsewhere")
      mkdirSync(elsewhere)
      const answering = await startSim()
      const resumed = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn("sh", ["-c", hint!], {
          cwd: elsewhere,
          env: { ...simEnv(answering.url), PATH: `${shims}:${process.env["PATH"] ?? ""}`, HOME: dir, NODE_ENV: "test" },
          stdio: ["ignore", "ignore", "pipe"]
        })
        let stderr = ""
        child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
        child.on("error", reject)
        child.on("close", (code) => resolve({ code, stderr }))
      })
      assert.strictEqual(resumed.code, 0, resumed.stderr)
      assertFinishedOnce(db, answering, questions, kept)
    },
    60_000
  )

  it(
    "on SIGTERM while --web-search reads a page that never arrives and one that takes long to extract: exit 130, then --resume finishes the run",
    async () => {
      // Each question's first step reads its own page (the hub caches pages by URL). Until `hostile`, a page
      // is nested 5,000 levels deep (once a freeze of the reader); then one never finishes downloading and
      // the next arrives at once but keeps Readability busy for longer than its budget.
      let hostile = false
      let hostileReads = 0
      let slowPage = ""
      const pages = await startPageServer((path) => {
        if (!hostile) return { html: nestedPage(5000) }
        hostileReads += 1
        if (hostileReads === 1) return { stall: true }
        slowPage = path
        return { html: slowToExtractPage() }
      })
      cleanups.push(() => pages.close())
      const readPage = (questionId: string) => `${pages.origin}/page/${questionId}`
      const search = {
        VTREE_SEARCH_ENABLED: "true",
        VTREE_SEARCH_READER_ENABLED: "true",
        VTREE_SEARCH_ALLOW_RANGES: "127.0.0.1/32"
      }
      const { db, sim } = await setup({ readPage })
      const args = ["--web-search", "--run-id", "web"]
      const running = start(inferArgs(db, "--concurrency", "2", ...args), simEnv(sim.url, search))
      await waitUntil(() => countPredictions(db) >= 2)
      hostile = true
      // Signalled once the slow page is sent whole: its download ends, its extraction is under way.
      await waitUntil(() => slowPage !== "" && pages.delivered.includes(slowPage), 20_000)
      running.child.kill("SIGTERM")
      const result = await endsWithin(running, signalBound)
      assert.strictEqual(result.code, 130, result.stderr)
      assert.strictEqual(runs(db)[0]!.status, "interrupted")
      const kept = predictions(db)
      assert.isBelow(kept.length, questions.length)
      assert.isTrue(kept.every((row) => row.stop_reason === "finished"))
      // The deep pages read before were extracted as their text.
      const reads = readDb(
        db,
        (h) => h.prepare("SELECT output FROM steps WHERE tool = 'external_read'").all() as Array<{ output: string }>
      )
      assert.isAtLeast(reads.length, kept.length)
      for (const read of reads) assert.include(read.output, "deep text")

      hostile = false
      const answering = await startSim({ readPage })
      const resumed = await run(resumeArgs(db, ...args), simEnv(answering.url, search))
      assert.strictEqual(resumed.code, 0, resumed.stderr)
      assertFinishedOnce(db, answering, questions, kept)
    },
    90_000
  )
})
