// Issue 11 through the CLI run in-process: a run is its question set, and storage failures as one line
// each (a foreign, newer or truncated database, a read-only mount, a full disk). One owner per run, which
// takes several processes and kill -9, is the built CLI's: test/e2e/harness/RunOwnership.test.ts.
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import {
  countPredictions,
  predictions,
  readDb,
  samplesJsonl,
  samplesTrees,
  simEnv,
  waitUntil
} from "../../support/harness/Cli.js"
import { agentModel } from "../../support/harness/Policy.js"
import { firstAsks, inferArgs, resumeArgs, simRuns, vtreeLines } from "../../support/harness/SimRuns.js"

const { cleanups, questions, setup } = simRuns()

describe("a run is its question set (in-process CLI)", () => {
  it(
    "--resume asks the stored set, and refuses other --questions, filters or a changed file with one line",
    async () => {
      const { db, dir, sim } = await setup()
      const file = join(dir, "questions.jsonl")
      copyFileSync(samplesJsonl, file)
      const started = await runCli([
        "infer",
        "--trees",
        samplesTrees,
        "--questions",
        file,
        "--db",
        db,
        "--n-samples",
        "3",
        "--run-id",
        "s"
      ], simEnv(sim.url))
      assert.strictEqual(started.code, 0, started.stderr)
      const stored = JSON.parse(
        readDb(
          db,
          (h) => (h.prepare("SELECT selection_json FROM runs").get() as { selection_json: string }).selection_json
        )
      )
      assert.deepStrictEqual([stored.questionsPath, stored.nSamples, stored.count, stored.videoIds], [file, 3, 3, null])

      for (const more of [["--n-samples", "5"], ["--video-ids", "vtSmpl0001a"], ["--questions", samplesJsonl]]) {
        const refused = await runCli(resumeArgs(db, "--run-id", "s", ...more), simEnv(sim.url))
        assert.strictEqual(refused.code, 1, `${more.join(" ")}: ${refused.stderr}`)
        const lines = vtreeLines(refused.stderr)
        assert.strictEqual(lines.length, 1, refused.stderr)
        assert.match(lines[0]!, /^vtree: --resume: .*differs from the run's .* — a run is its question set/)
      }
      // The same flags again are fine, and so is none: 3 of 3 done, nothing asked.
      sim.reset()
      const same = await runCli(
        resumeArgs(db, "--run-id", "s", "--n-samples", "3", "--questions", file),
        simEnv(sim.url)
      )
      assert.strictEqual(same.code, 0, same.stderr)
      assert.strictEqual(firstAsks(sim, questions).size, 0)
      assert.strictEqual(predictions(db).length, 3)

      writeFileSync(file, readFileSync(file, "utf8").split("\n").reverse().join("\n"))
      const changed = await runCli(resumeArgs(db, "--run-id", "s"), simEnv(sim.url))
      assert.strictEqual(changed.code, 1)
      assert.match(vtreeLines(changed.stderr).join("\n"), /^vtree: --resume: .*changed since the run started/)
    },
    90_000
  )

  it("--retry-errors keeps the failed attempt's calls: report tokens are tokens spent", async () => {
    // The agent endpoint fails for question 001-2 on the first run only.
    const { db, sim } = await setup({ agentDelayMs: 0 })
    const first = await runCli(inferArgs(db, "--question-ids", "001-1,001-2", "--run-id", "t"), {
      ...simEnv("http://127.0.0.1:9/v1"),
      // The questions must end in error and be saved, not stop the run.
      VTREE_BREAKER_CALLS: "0"
    })
    assert.strictEqual(first.code, 0, first.stderr)
    const errored = readDb(db, (h) => h.prepare("SELECT count(*) AS n FROM llm_calls").get() as { n: number }).n
    assert.isAbove(errored, 0)
    const retried = await runCli(resumeArgs(db, "--run-id", "t", "--retry-errors"), simEnv(sim.url))
    assert.strictEqual(retried.code, 0, retried.stderr)
    const calls = readDb(
      db,
      (h) =>
        h.prepare("SELECT superseded, prompt_tokens FROM llm_calls").all() as Array<
          { superseded: number; prompt_tokens: number }
        >
    )
    assert.strictEqual(calls.filter((c) => c.superseded === 1).length, errored)
    const report = await runCli(["report", "--db", db, "--format", "json"], {})
    const tokens = (JSON.parse(report.stdout) as { tokens: { byRole: Array<{ calls: number }> } }).tokens.byRole.reduce(
      (sum, r) => sum + r.calls,
      0
    )
    assert.strictEqual(tokens, calls.length)
  }, 90_000)
})

/** Runs `mount` as root; these tests need it (the CI container runs as root). */
const mount = (...args: Array<string>) => execFileSync("mount", args, { stdio: "pipe" })
const umount = (dir: string) => execFileSync("umount", ["-l", dir], { stdio: "pipe" })

describe("storage failures are one line, exit 1 (in-process CLI)", () => {
  it(
    "a foreign database (with its own runs table), a newer one and a truncated one: refused, never changed",
    async () => {
      const { db, dir, sim } = await setup()
      const foreign = join(dir, "foreign.db")
      const handle = new Database(foreign)
      handle.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO runs (note) VALUES ('theirs')")
      handle.close()
      const bytes = readFileSync(foreign)
      for (const args of [["report", "--db", foreign], inferArgs(foreign)]) {
        const result = await runCli(args, simEnv(sim.url))
        assert.strictEqual(result.code, 1)
        assert.match(
          vtreeLines(result.stderr).join("\n"),
          /^vtree: .*foreign\.db: not a vtree database \(it holds tables runs\)/
        )
        assert.notInclude(result.stderr, "internal error")
      }
      assert.isTrue(readFileSync(foreign).equals(bytes))

      assert.strictEqual((await runCli(inferArgs(db, "--question-ids", "001-1"), simEnv(sim.url))).code, 0)
      const newer = join(dir, "newer.db")
      copyFileSync(db, newer)
      readDb(newer, () => undefined)
      const writable = new Database(newer)
      writable.exec("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (42, 'from_the_future')")
      writable.close()
      for (const args of [["report", "--db", newer], resumeArgs(newer)]) {
        const result = await runCli(args, simEnv(sim.url))
        assert.strictEqual(result.code, 1)
        assert.match(
          vtreeLines(result.stderr).join("\n"),
          /^vtree: .*written by a newer vtree \(schema 42; this vtree knows up to \d+\) — upgrade vtree/
        )
      }

      const truncated = join(dir, "truncated.db")
      const full = new Database(db)
      full.pragma("wal_checkpoint(TRUNCATE)")
      full.close()
      const content = readFileSync(db)
      writeFileSync(truncated, content.subarray(0, Math.floor(content.length / 2)))
      for (const args of [["report", "--db", truncated], resumeArgs(truncated)]) {
        const result = await runCli(args, simEnv(sim.url))
        assert.strictEqual(result.code, 1)
        assert.match(
          vtreeLines(result.stderr).join("\n"),
          /^vtree: .*truncated\.db: the database is damaged or truncated .* — restore it from a copy/
        )
      }
    },
    90_000
  )

  it("a read-only mount: report still reads (and writes nothing), infer says the location is read-only", async () => {
    const { db, dir, sim } = await setup()
    assert.strictEqual((await runCli(inferArgs(db, "--question-ids", "001-1,001-2"), simEnv(sim.url))).code, 0)
    const ro = join(dir, "ro")
    mkdirSync(ro)
    mount("-t", "tmpfs", "-o", "size=4m", "tmpfs", ro)
    cleanups.push(() => umount(ro))
    copyFileSync(db, join(ro, "runs.db"))
    mount("-o", "remount,ro", ro)
    const report = await runCli(["report", "--db", join(ro, "runs.db")], {})
    assert.strictEqual(report.code, 0, report.stderr)
    assert.match(report.stdout, /completed/)
    for (
      const args of [
        inferArgs(join(ro, "runs.db"), "--question-ids", "001-3"),
        resumeArgs(join(ro, "runs.db")),
        inferArgs(join(ro, "new.db"))
      ]
    ) {
      const result = await runCli(args, simEnv(sim.url))
      assert.strictEqual(result.code, 1)
      const lines = vtreeLines(result.stderr)
      assert.strictEqual(lines.length, 1, result.stderr)
      assert.match(
        lines[0]!,
        /cannot write there \(read-only location or no permission\) .* pass --db with a writable path/
      )
    }
  }, 90_000)

  it("a full disk: one DiskFull line, and the questions finished before it stay", async () => {
    const { dir, sim } = await setup()
    const small = join(dir, "small")
    mkdirSync(small)
    // The write-ahead log of the sample run outgrows 320 KiB after a question or two (the schema with its
    // fleet tables, 0013, takes a few pages more than 256 KiB left room for).
    mount("-t", "tmpfs", "-o", "size=320k", "tmpfs", small)
    cleanups.push(() => umount(small))
    const db = join(small, "runs.db")
    const result = await runCli(inferArgs(db, "--concurrency", "1"), simEnv(sim.url))
    assert.strictEqual(result.code, 1, result.stderr)
    const lines = vtreeLines(result.stderr)
    assert.strictEqual(lines.length, 1, result.stderr)
    assert.match(lines[0]!, /disk full while .* — free space on that disk .* --resume; finished questions are saved/)
    const kept = predictions(db)
    assert.isAbove(kept.length, 0)
    assert.isBelow(kept.length, questions.length)
  }, 90_000)
})

describe("a database changed under a running run (in-process CLI)", () => {
  // One question is answered, then the agent's calls never answer: only the heartbeat (every 500 ms
  // with this lease) can notice what happened to the file; nothing else would end the run.
  const stalledRun = async (runId: string) => {
    const { db, dir, sim } = await setup({ stallAgentAfter: 2 })
    const running = runCli(
      inferArgs(db, "--concurrency", "1", "--run-id", runId),
      simEnv(sim.url, { VTREE_LEASE_MS: "1500" })
    )
    await waitUntil(() => countPredictions(db) >= 1)
    await sim.waitFor(() => sim.requests.filter((r) => r.model === agentModel).length === 3, 20_000)
    return { db, dir, running }
  }

  it(
    "a file moved over the database mid-run: one line naming the file and the run, nothing written into it",
    async () => {
      const { db, dir, running } = await stalledRun("rp")
      // Another database holding the same run (a copy of this one, as a restore from a backup would be).
      const copy = join(dir, "copy.db")
      const source = new Database(db, { readonly: true })
      await source.backup(copy).finally(() => source.close())
      const copied = readFileSync(copy)
      renameSync(copy, db)
      const result = await running
      assert.strictEqual(result.code, 1, result.stderr)
      const lines = vtreeLines(result.stderr)
      assert.strictEqual(lines.length, 1, result.stderr)
      assert.match(
        lines[0]!,
        /^vtree: \S*runs\.db: the database file was replaced while run "rp" was going .*--resume --run-id rp/
      )
      assert.notMatch(lines[0]!, /no run|available/)
      assert.isTrue(readFileSync(db).equals(copied), "the file put in its place was written to")
    },
    60_000
  )

  it("the database file deleted mid-run: one line saying so, not a lost lease", async () => {
    const { db, running } = await stalledRun("rd")
    for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true })
    const result = await running
    assert.strictEqual(result.code, 1, result.stderr)
    const lines = vtreeLines(result.stderr)
    assert.strictEqual(lines.length, 1, result.stderr)
    assert.match(lines[0]!, /^vtree: \S*runs\.db: the database file was deleted while run "rd" was going/)
    assert.isFalse(existsSync(db))
  }, 60_000)

  it(
    "the run's row deleted by another program mid-run: one line saying so, not a lost lease or a missing run",
    async () => {
      const { db, running } = await stalledRun("rr")
      const writable = new Database(db)
      try {
        writable.pragma("foreign_keys = ON")
        writable.prepare("DELETE FROM runs WHERE run_id = 'rr'").run()
      } finally {
        writable.close()
      }
      const result = await running
      assert.strictEqual(result.code, 1, result.stderr)
      const lines = vtreeLines(result.stderr)
      assert.strictEqual(lines.length, 1, result.stderr)
      assert.match(
        lines[0]!,
        /^vtree: \S*runs\.db: run "rr" was deleted from the database while this process was running it/
      )
      assert.notMatch(lines[0]!, /lease expired|another worker|available/)
    },
    60_000
  )
})
