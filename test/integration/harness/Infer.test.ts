// `vtree infer`, run in-process, against openai-sim with a scripted agent, on samples/. Signals (kill -9,
// Ctrl-C) are the built CLI's: test/e2e/harness/InferSignals.test.ts.
import { assert, describe, it } from "@effect/vitest"
import { chmodSync, cpSync, existsSync, readdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import {
  predictions,
  readDb,
  runs,
  samplesDir,
  samplesJsonl,
  samplesTrees,
  simEnv,
  tempDir
} from "../../support/harness/Cli.js"
import { agentModel, policyScripts, sampleQuestions } from "../../support/harness/Policy.js"
import { inferArgs, simRuns, vtreeLines } from "../../support/harness/SimRuns.js"
import * as OcrSim from "../../support/ocr-sim/index.js"
import * as Sim from "../../support/openai-sim/index.js"

const questions = sampleQuestions()
const secret = "sk-test-SECRET-do-not-print-4711"

const { cleanups, setup } = simRuns(questions)

/** A port nothing listens on: taken, then let go. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const allDbText = (db: string): string =>
  readDb(db, (handle) => {
    const tables = ["runs", "predictions", "steps", "llm_calls"]
    return tables.map((table) => JSON.stringify(handle.prepare(`SELECT * FROM ${table}`).all())).join("\n")
  })

describe("vtree infer (in-process CLI against openai-sim)", () => {
  it("answers every question, stores steps and calls by role, prints the summary, keeps the key out", async () => {
    const wrong = new Set(["001-2", "001-5"])
    const { db, sim } = await setup({ wrong })
    const result = await runCli(
      inferArgs(db, "--run-id", "e2e-1", "--concurrency", "3"),
      simEnv(sim.url, { VTREE_LLM_API_KEY: secret })
    )
    assert.strictEqual(result.code, 0, result.stderr)

    const rows = predictions(db)
    assert.deepStrictEqual(rows.map((r) => r.question_id), questions.map((q) => q.questionId))
    assert.strictEqual(rows.filter((r) => r.correct === 1).length, questions.length - wrong.size)
    for (const row of rows) {
      assert.strictEqual(row.stop_reason, "finished")
      assert.strictEqual(row.steps_used, 2)
      assert.strictEqual(row.correct === 1, !wrong.has(row.question_id))
      assert.isAbove(row.prompt_tokens, 0)
    }
    const steps = readDb(
      db,
      (h) => h.prepare("SELECT question_id, step, tool FROM steps ORDER BY question_id, step").all()
    ) as Array<
      { question_id: string; step: number; tool: string }
    >
    assert.deepStrictEqual(
      steps.filter((s) => s.question_id === "001-1").map((s) => [s.step, s.tool]),
      [[1, "view_node"], [2, "submit_answer"]]
    )
    assert.strictEqual(steps.length, 2 * questions.length)
    const calls = readDb(
      db,
      (h) =>
        h.prepare("SELECT role, model, count(*) AS n, min(parent_step) AS first FROM llm_calls GROUP BY role, model")
          .all()
    ) as Array<
      { role: string; model: string; n: number; first: number }
    >
    assert.deepStrictEqual(calls.map((c) => [c.role, c.model, c.n]), [
      ["agent", "agent-model", 2 * questions.length],
      // view_node: extract + verify of the node, extract + verify of its children.
      ["tool", "tool-model", 4 * questions.length]
    ])
    const orphans = readDb(
      db,
      (h) =>
        h.prepare(
          "SELECT count(*) AS n FROM llm_calls c LEFT JOIN predictions p USING (run_id, question_id) WHERE p.question_id IS NULL"
        )
          .get()
    ) as { n: number }
    assert.strictEqual(orphans.n, 0)

    assert.match(result.stdout, /Run e2e-1 · completed/)
    assert.match(result.stdout, /Accuracy 71\.4% \[35\.9–91\.8\] 95% CI \(5\/7\)/)
    // Correct, wrong, unanswered, total.
    assert.match(result.stdout, /Counting Problem\s+1\s+0\s+0\s+1\s+100\.0%/)
    assert.match(result.stdout, /agent\s+14\s+0/)
    assert.match(result.stderr, /7\/7 · acc 71\.4%/)

    // The key reached the endpoint, and nowhere else.
    assert.isTrue(sim.requests.every((r) => r.headers["authorization"] === `Bearer ${secret}`))
    assert.notInclude(result.stdout, "SECRET")
    assert.notInclude(result.stderr, "SECRET")
    assert.notInclude(allDbText(db), "SECRET")
    const [runRow] = runs(db)
    assert.strictEqual(runRow!.status, "completed")
    const config = JSON.parse(runRow!.config_json) as {
      providers: { llm: { agent: { model: string } } }
      concurrency: number
    }
    assert.strictEqual(config.providers.llm.agent.model, "agent-model")
    assert.strictEqual(config.concurrency, 3)

    // The same run id again, without --resume, is refused in one line.
    const again = await runCli(inferArgs(db, "--run-id", "e2e-1"), simEnv(sim.url))
    assert.strictEqual(again.code, 1)
    assert.match(again.stderr.trim(), /^vtree: .*run "e2e-1" already exists — pass --resume/)
    assert.strictEqual(again.stderr.trim().split("\n").length, 1)
  }, 60_000)

  it(
    "on a terminal, the progress bar redraws one line cut to its width, through the console it was given",
    async () => {
      const { db, sim } = await setup()
      const result = await runCli(inferArgs(db, "--run-id", "tty"), simEnv(sim.url), { isTTY: true, columns: 50 })
      assert.strictEqual(result.code, 0, result.stderr)
      const redraws = result.stderr.split("\r\x1b[2K").slice(1).map((frame) => frame.replace(/\n$/, ""))
      assert.isAbove(redraws.length, 0, result.stderr)
      assert.match(redraws.at(-1)!, /^\[#+\] 7\/7 · acc /)
      for (const frame of redraws) assert.isAtMost(frame.length, 49, frame)
      // Not the plain mode's log lines: a terminal gets the bar alone.
      assert.notMatch(result.stderr, /vtree: run tty:/)
    },
    60_000
  )

  it("takes the duration from the tree for directory-form questions", async () => {
    const { db, sim } = await setup()
    const result = await runCli(
      [
        "infer",
        "--trees",
        samplesTrees,
        "--questions",
        samplesDir,
        "--db",
        db,
        "--task-types",
        "Counting Problem,OCR Problems"
      ],
      simEnv(sim.url)
    )
    assert.strictEqual(result.code, 0, result.stderr)
    const rows = predictions(db)
    assert.deepStrictEqual(rows.map((r) => [r.question_id, r.duration]), [["001-1", "medium"], ["001-5", "medium"]])
  }, 60_000)

  it("completes under 30% failing and 5% stalling replies: every question once, answered or error", async () => {
    const { db, sim } = await setup({ faults: { failRate: 0.3, stallRate: 0.05, seed: 11 } })
    const result = await runCli(
      inferArgs(db, "--concurrency", "4"),
      simEnv(sim.url, {
        VTREE_LLM_TIMEOUT_SECONDS: "1",
        VTREE_TOOL_LLM_TIMEOUT_SECONDS: "1",
        VTREE_PROVIDER_RETRIES: "1"
      })
    )
    assert.strictEqual(result.code, 0, result.stderr)
    const rows = predictions(db)
    assert.deepStrictEqual(rows.map((r) => r.question_id), questions.map((q) => q.questionId))
    for (const row of rows) {
      assert.isTrue(row.prediction !== null || row.stop_reason === "error", JSON.stringify(row))
    }
    // The faults really happened: some replies failed and some stalled.
    assert.isTrue(sim.requests.some((r) => r.aborted))
    const failed = readDb(
      db,
      (h) => (h.prepare("SELECT count(*) AS n FROM llm_calls WHERE status = 'error'").get() as { n: number }).n
    )
    assert.isAbove(failed + sim.requests.filter((r) => r.aborted).length, 0)
    assert.match(result.stdout, /Accuracy/)
  }, 90_000)

  it("refuses each bad input with exit 1 and one line naming the problem and the fix", async () => {
    const { db, dir, sim } = await setup()
    const missingTree = join(dir, "missing-tree.jsonl")
    writeFileSync(
      missingTree,
      JSON.stringify({
        videoID: "noSuchVideo",
        question_id: "x-1",
        task_type: "Counting Problem",
        question: "How many?",
        options: ["A. 1", "B. 2"],
        answer: "A"
      }) + "\n"
    )
    const malformed = join(dir, "bad.jsonl")
    writeFileSync(malformed, "{\"videoID\": \"vtSmpl0001a\", \"question_id\": \n")
    const env = simEnv(sim.url)
    const cases: Array<[string, Array<string>, Record<string, string>, RegExp]> = [
      [
        "missing trees dir",
        ["infer", "--trees", join(dir, "nope"), "--questions", samplesJsonl, "--db", db],
        env,
        /^vtree: --trees .*nope: no such directory — pass the folder holding one <videoID>\/tree\.json per video$/
      ],
      [
        "question whose tree is missing",
        ["infer", "--trees", samplesTrees, "--questions", missingTree, "--db", db],
        env,
        /^vtree: .*noSuchVideo\/tree\.json: not found, needed by question x-1 — build the tree, fix --trees, or leave/
      ],
      [
        "malformed question file",
        ["infer", "--trees", samplesTrees, "--questions", malformed, "--db", db],
        env,
        /^vtree: .*bad\.jsonl: line 1: not valid JSON .* — each line must hold one complete JSON object$/
      ],
      [
        "no LLM configured",
        ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", db],
        {},
        /^vtree: no LLM configured — set VTREE_LLM_MODEL .*VTREE_LLM_BASE_URL.*OPENAI_BASE_URL \/ OPENAI_API_KEY/
      ]
    ]
    const results = await Promise.all(cases.map(([, args, caseEnv]) => runCli(args, caseEnv)))
    results.forEach((result, i) => {
      const [name, , , pattern] = cases[i]!
      assert.strictEqual(result.code, 1, `${name}: ${result.stderr}`)
      const lines = result.stderr.trim().split("\n")
      assert.strictEqual(lines.length, 1, `${name}: ${result.stderr}`)
      assert.match(lines[0]!, pattern, name)
      assert.strictEqual(result.stdout, "", name)
    })
    assert.strictEqual(sim.requests.length, 0)
    // Checked before the store opens: a mistyped flag leaves no empty database behind.
    assert.isFalse(existsSync(db), "a database file was created for a run that never started")
  }, 60_000)

  it(
    "breaker off, an unreachable endpoint: each question ends as error, not a crash; the report says why",
    async () => {
      const { db } = await setup()
      const port = await closedPort()
      const result = await runCli(
        inferArgs(db, "--concurrency", "7"),
        simEnv(`http://127.0.0.1:${port}/v1`, {
          VTREE_PROVIDER_RETRIES: "1",
          VTREE_LLM_API_KEY: secret,
          VTREE_BREAKER_CALLS: "0"
        })
      )
      assert.strictEqual(result.code, 0, result.stderr)
      const rows = predictions(db)
      assert.strictEqual(rows.length, questions.length)
      for (const row of rows) {
        assert.strictEqual(row.stop_reason, "error")
        assert.match(row.error ?? "", /Transport/)
      }
      assert.match(result.stdout, /error\s+7/)
      assert.notInclude(result.stdout + result.stderr + allDbText(db), "SECRET")
      // The report says what went wrong, how to ask again, and that every call was retried (once each).
      const failedRun = runs(db)[0]!.run_id
      assert.match(result.stdout, /^Errors: 7 questions ended in error; the most common messages$/m)
      assert.match(
        result.stdout,
        /^\s+7 {2}llm: Transport: llm: connection failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/m
      )
      assert.include(
        result.stdout,
        `vtree infer --resume --retry-errors --run-id ${failedRun} (with the run's --trees and --db)`
      )
      assert.match(result.stdout, /^agent\s+21\s+21\s+21\s/m)

      // Once the endpoint is back, --resume --retry-errors asks exactly the failed questions again.
      const { sim } = await setup()
      const runId = runs(db)[0]!.run_id
      const plain = await runCli(inferArgs(db, "--run-id", runId, "--resume"), simEnv(sim.url))
      assert.strictEqual(plain.code, 0, plain.stderr)
      assert.strictEqual(sim.requests.length, 0)
      const retried = await runCli(inferArgs(db, "--run-id", runId, "--resume", "--retry-errors"), simEnv(sim.url))
      assert.strictEqual(retried.code, 0, retried.stderr)
      const after = predictions(db)
      assert.strictEqual(after.length, questions.length)
      assert.isTrue(after.every((row) => row.stop_reason === "finished"))
      const misuse = await runCli(inferArgs(db, "--retry-errors"), simEnv(sim.url))
      assert.strictEqual(misuse.code, 1)
      assert.match(
        misuse.stderr.trim(),
        /^vtree: --retry-errors re-asks the failed questions of an earlier run: use it with --resume/
      )
    },
    60_000
  )

  it(
    "stops the run when the agent endpoint's port is closed: failed, exit 1, one line; --resume answers everything",
    async () => {
      const { db, sim } = await setup()
      const port = await closedPort()
      // Default provider retries (4, from 1 s): the breaker must stop the run during the first calls' retries.
      const dead = await runCli(
        inferArgs(db, "--run-id", "dead", "--concurrency", "8"),
        simEnv(`http://127.0.0.1:${port}/v1`, { VTREE_LLM_API_KEY: secret, VTREE_PROVIDER_RETRIES: "4" })
      )
      assert.strictEqual(dead.code, 1, dead.stderr)
      const lines = vtreeLines(dead.stderr)
      assert.strictEqual(lines.length, 1, dead.stderr)
      assert.match(
        lines[0]!,
        new RegExp(
          `^vtree: the agent model endpoint 127\\.0\\.0\\.1:${port} cannot be reached: 8 calls in a row failed ` +
            `\\(llm: connection failed \\(.*ECONNREFUSED.*\\)\\) — start the server or fix VTREE_LLM_BASE_URL; ` +
            `run dead stopped \\(finished questions are saved: continue with --resume --run-id dead\\)$`
        )
      )
      assert.notInclude(dead.stdout + dead.stderr + allDbText(db), "SECRET")
      assert.strictEqual(runs(db)[0]!.status, "failed")
      // No question had spent its retries (about 15 s each) when the breaker tripped: none was saved.
      assert.deepStrictEqual(predictions(db), [])
      const calls = readDb(db, (h) => h.prepare("SELECT count(*) AS n FROM llm_calls").get()) as { n: number }
      assert.strictEqual(calls.n, 0)

      const resumed = await runCli(inferArgs(db, "--run-id", "dead", "--resume"), simEnv(sim.url))
      assert.strictEqual(resumed.code, 0, resumed.stderr)
      assert.strictEqual(predictions(db).length, questions.length)
      assert.isTrue(predictions(db).every((row) => row.stop_reason === "finished"))
      assert.strictEqual(runs(db)[0]!.status, "completed")
    },
    60_000
  )

  it(
    "records each call's attempts: a call retried after a 500 counts as retried, not as an error, in text and JSON",
    async () => {
      const { db } = await setup()
      const policy = policyScripts({ questions })
      const agent = policy[agentModel] as (request: Sim.SimRequest, index: number) => Sim.ChatReply | Sim.Fault
      const sim = await Sim.start({
        chat: {
          ...policy,
          [agentModel]: (request, index) => index === 0 ? { fault: "status", status: 500 } : agent(request, index - 1)
        }
      })
      cleanups.push(() => sim.close())
      const result = await runCli(inferArgs(db, "--run-id", "retried", "--question-ids", "001-1"), simEnv(sim.url))
      assert.strictEqual(result.code, 0, result.stderr)
      const attempts = readDb(
        db,
        (h) => h.prepare("SELECT role, attempts FROM llm_calls ORDER BY call_id").all()
      ) as Array<
        { role: string; attempts: number }
      >
      assert.deepStrictEqual(
        attempts.filter((c) => c.role === "agent").map((c) => c.attempts),
        [2, 1]
      )
      assert.isTrue(attempts.filter((c) => c.role === "tool").every((c) => c.attempts === 1))
      assert.match(result.stdout, /^agent\s+2\s+0\s+1\s/m)
      const report = await runCli(["report", "--db", db, "--format", "json"])
      assert.strictEqual(report.code, 0, report.stderr)
      const summary = JSON.parse(report.stdout) as {
        tokens: { byRole: Array<{ role: string; errors: number; retried: number | null }> }
        errors: { questions: number; messages: Array<unknown>; retryCommand: string | null }
      }
      const agentRow = summary.tokens.byRole.find((r) => r.role === "agent")!
      assert.deepStrictEqual([agentRow.errors, agentRow.retried], [0, 1])
      assert.deepStrictEqual(summary.errors, { questions: 0, messages: [], retryCommand: null })
    },
    60_000
  )

  it("offers external_search / external_read only with --web-search and an enabled capability", async () => {
    const { db, sim } = await setup()
    const off = await runCli(inferArgs(db, "--web-search", "--question-ids", "001-1"), simEnv(sim.url))
    assert.strictEqual(off.code, 1)
    assert.match(
      off.stderr.trim(),
      /^vtree: --web-search: no search capability is enabled — set VTREE_SEARCH_ENABLED=true/
    )
    assert.strictEqual(sim.requests.length, 0)

    const on = await runCli(
      inferArgs(db, "--web-search", "--question-ids", "001-1"),
      simEnv(sim.url, { VTREE_SEARCH_ENABLED: "true", VTREE_SEARCH_READER_ENABLED: "true" })
    )
    assert.strictEqual(on.code, 0, on.stderr)
    const systemPrompt = (request: Sim.SimRequest) =>
      String((request.body["messages"] as ReadonlyArray<{ content: unknown }>)[0]?.content ?? "")
    const agentRequests = sim.requests.filter((request) => request.model === "agent-model")
    assert.isAbove(agentRequests.length, 0)
    for (const request of agentRequests) {
      assert.include(systemPrompt(request), "external_search")
      assert.include(systemPrompt(request), "external_read")
    }

    sim.reset()
    const plain = await runCli(inferArgs(db.replace(/\.db$/, "-plain.db"), "--question-ids", "001-1"), simEnv(sim.url))
    assert.strictEqual(plain.code, 0, plain.stderr)
    for (const request of sim.requests.filter((r) => r.model === "agent-model")) {
      assert.notInclude(systemPrompt(request), "external_search")
    }
  }, 60_000)

  it("stops the run at once when the endpoint refuses the key, then --resume answers everything", async () => {
    const { db, sim } = await setup()
    const refusing = await Sim.start({
      chat: { "*": () => ({ fault: "status", status: 401, message: "Incorrect API key provided" }) }
    })
    cleanups.push(() => refusing.close())
    const refused = await runCli(
      inferArgs(db, "--run-id", "keyed", "--concurrency", "2"),
      simEnv(refusing.url, { VTREE_LLM_API_KEY: secret })
    )
    assert.strictEqual(refused.code, 1, refused.stderr)
    // Progress lines aside, one line says what is wrong.
    const lines = refused.stderr.trim().split("\n").filter((line) =>
      line.startsWith("vtree: ") && !/^vtree: run \S+: \d+\/\d+ /.test(line)
    )
    assert.strictEqual(lines.length, 1, refused.stderr)
    assert.match(
      lines[0]!,
      /^vtree: the agent model endpoint refused the credentials \(model agent-model\) — check VTREE_LLM_API_KEY \/ VTREE_LLM_MODEL; run keyed stopped .* --resume --run-id keyed\)$/
    )
    assert.notInclude(refused.stdout + refused.stderr, "SECRET")
    // Non-retryable: the endpoint was asked once per question started, not through the whole benchmark.
    assert.isAtMost(refusing.requests.length, 2)
    assert.strictEqual(runs(db)[0]!.status, "failed")
    assert.strictEqual(predictions(db).length, 0)

    const resumed = await runCli(inferArgs(db, "--run-id", "keyed", "--resume"), simEnv(sim.url))
    assert.strictEqual(resumed.code, 0, resumed.stderr)
    assert.strictEqual(predictions(db).length, questions.length)
    assert.isTrue(predictions(db).every((row) => row.stop_reason === "finished"))
    assert.strictEqual(runs(db)[0]!.status, "completed")
  }, 60_000)

  it("looks at frames through the configured VLM, with MonkeyOCR's transcript, all recorded by role", async () => {
    const temp = tempDir()
    cleanups.push(temp.cleanup)
    const db = join(temp.dir, "vision.db")
    const ocr = await OcrSim.start({ reply: (file) => ({ success: true, content: `OCR-TEXT ${file.name}` }) })
    cleanups.push(() => ocr.close())
    const frame = "vtSmpl0001a_L1_001_L2_001_L3_002"
    const visionPrompts: Array<string> = []
    const sim = await Sim.start({
      chat: {
        "agent-model": (request) => {
          const done = (request.body["messages"] as ReadonlyArray<{ role: string }>).filter((m) =>
            m.role === "assistant"
          ).length
          const action = done === 0
            ? { tool: "observe_frame", args: { node_ids: [frame], question: "How many eggs are in the pan?" } }
            : { tool: "submit_answer", args: { answer: "C" } }
          return { content: JSON.stringify({ reflect: {}, plan: {}, action }) }
        },
        "vlm-model": (request) => {
          const parts = (request.body["messages"] as ReadonlyArray<{ content: unknown }>).flatMap((m) =>
            Array.isArray(m.content)
              ? m.content as ReadonlyArray<{ type: string; text?: string; image_url?: { url: string } }>
              : []
          )
          visionPrompts.push(
            parts.map((part) => part.type === "text" ? part.text ?? "" : part.image_url?.url.slice(0, 23) ?? "").join(
              "\n"
            )
          )
          return { content: "Four eggs sit in the sauce.\ndetails=four eggs; confidence=0.9" }
        }
      }
    })
    cleanups.push(() => sim.close())
    const result = await runCli(
      inferArgs(db, "--question-ids", "001-1"),
      simEnv(sim.url, { VTREE_OCR_URLS: ocr.url })
    )
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(ocr.requests.map((file) => file.name), ["L1_001_L2_001_L3_002.jpg"])
    // Extract and verify rounds, each with the frame as a JPEG data URL and the OCR transcript in the text.
    assert.strictEqual(visionPrompts.length, 2)
    for (const prompt of visionPrompts) {
      assert.include(prompt, "data:image/jpeg;base64")
      assert.include(prompt, "OCR-TEXT L1_001_L2_001_L3_002.jpg")
    }
    const roles = readDb(
      db,
      (h) => h.prepare("SELECT role, status, count(*) AS n FROM llm_calls GROUP BY role, status ORDER BY role").all()
    )
    assert.deepStrictEqual(roles, [
      { role: "agent", status: "ok", n: 2 },
      { role: "ocr", status: "ok", n: 1 },
      { role: "vlm", status: "ok", n: 2 }
    ])
    const [step] = readDb(db, (h) => h.prepare("SELECT output FROM steps WHERE step = 1").all()) as Array<
      { output: string }
    >
    assert.include(step!.output, "[Visual observation] Four eggs sit in the sauce.")
  }, 60_000)

  it(
    "with an embedding endpoint, loads trees with embeddings (cached) and records those calls for the run",
    async () => {
      const { sim, dir } = await setup()
      const trees = join(dir, "trees")
      cpSync(samplesTrees, trees, { recursive: true })
      const db = join(dir, "embed.db")
      const cache = join(dir, "cache")
      const env = simEnv(sim.url, {
        VTREE_EMBED_BASE_URL: sim.url,
        VTREE_EMBED_MODEL: "embed-model",
        VTREE_CACHE_DIR: cache
      })
      const args = ["infer", "--trees", trees, "--questions", samplesJsonl, "--db", db, "--question-ids", "001-1,001-2"]
      const first = await runCli(args, env)
      assert.strictEqual(first.code, 0, first.stderr)
      const embedCalls = (file: string) =>
        readDb(file, (h) => h.prepare("SELECT question_id, status FROM llm_calls WHERE role = 'embed'").all()) as Array<
          { question_id: string | null; status: string }
        >
      const loaded = embedCalls(db)
      assert.isAbove(loaded.length, 0)
      // Embedding a tree belongs to the run, not to a question.
      assert.isTrue(loaded.every((call) => call.question_id === null))
      assert.isTrue(loaded.every((call) => call.status === "ok"))
      // The cache is VTREE_CACHE_DIR's: infer writes nothing into the trees folder.
      assert.isTrue(
        readdirSync(cache, { recursive: true }).some((name) => String(name).includes("embeddings-embed-model"))
      )
      assert.isFalse(existsSync(join(trees, "vtSmpl0001a", ".vtree")))

      // A second run over the same trees reads the cache: no chunk is embedded again.
      const again = join(dir, "embed-again.db")
      const second = await runCli([
        "infer",
        "--trees",
        trees,
        "--questions",
        samplesJsonl,
        "--db",
        again,
        "--question-ids",
        "001-1"
      ], env)
      assert.strictEqual(second.code, 0, second.stderr)
      assert.strictEqual(embedCalls(again).length, 0)
    },
    60_000
  )

  it(
    "with an embedding endpoint that fails, answers every question by keywords, from a read-only trees folder",
    async () => {
      const sim = await Sim.start({
        chat: policyScripts({ questions }),
        embeddings: { "*": () => ({ fault: "status", status: 400, message: "embedding model overloaded" }) }
      })
      cleanups.push(() => sim.close())
      const { dir } = await setup()
      const trees = join(dir, "trees")
      cpSync(samplesTrees, trees, { recursive: true })
      const listing = () => readdirSync(trees, { recursive: true }).map(String).sort()
      const before = listing()
      chmodSync(join(trees, "vtSmpl0001a"), 0o555)
      chmodSync(trees, 0o555)
      try {
        const db = join(dir, "down.db")
        const result = await runCli(
          ["infer", "--trees", trees, "--questions", samplesJsonl, "--db", db, "--question-ids", "001-1,001-2"],
          simEnv(sim.url, {
            VTREE_EMBED_BASE_URL: sim.url,
            VTREE_EMBED_MODEL: "embed-model",
            VTREE_CACHE_DIR: join(dir, "cache")
          })
        )
        assert.strictEqual(result.code, 0, result.stderr)
        assert.deepStrictEqual(predictions(db).map((row) => row.stop_reason), ["finished", "finished"])
        assert.include(result.stderr, "semantic search unavailable")
        // As root chmod stops no write: the folder's listing is the proof.
        assert.deepStrictEqual(listing(), before)
      } finally {
        chmodSync(trees, 0o755)
        chmodSync(join(trees, "vtSmpl0001a"), 0o755)
      }
    },
    60_000
  )
})
