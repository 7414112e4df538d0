// Control runs (issue 40 item 3): `vtree infer --control blind|shuffled|chance` run in-process against openai-sim.
import { assert, describe, it } from "@effect/vitest"
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { predictions, readDb, runs, samplesJsonl, samplesTrees, simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel, sampleQuestions, toolModel } from "../../support/harness/Policy.js"
import { inferArgs, simRuns, vtreeLines } from "../../support/harness/SimRuns.js"
import * as Sim from "../../support/openai-sim/index.js"

const samples = sampleQuestions()
const { cleanups, setup, startSim } = simRuns(samples)

/** A folder for one test, removed after it. */
const folder = () => {
  const temp = tempDir()
  cleanups.push(temp.cleanup)
  return temp.dir
}

const storedConfig = (db: string) => JSON.parse(runs(db)[0]!.config_json) as Record<string, unknown>

const calls = (db: string) =>
  readDb(db, (h) => h.prepare("SELECT role, question_id FROM llm_calls ORDER BY question_id").all()) as Array<
    { role: string; question_id: string | null }
  >

const messagesOf = (request: Sim.SimRequest) =>
  request.body["messages"] as ReadonlyArray<{ readonly role: string; readonly content: string }>

/** A sim whose agent answers each question in a sentence with its key's letter (wrong for `wrong`). */
const blindSim = async (wrong: ReadonlySet<string> = new Set()) => {
  const sim = await Sim.start({
    chat: {
      [agentModel]: (request) => {
        const text = messagesOf(request).map((m) => m.content).join("\n")
        const question = samples.find((q) => text.includes(q.question))
        if (question === undefined) return { content: "I cannot tell." }
        const letter = wrong.has(question.questionId)
          ? "ABCD"[("ABCD".indexOf(question.answer) + 1) % 4]
          : question.answer
        return { content: `The answer is ${letter}. It is the most common choice.`, reasoning: "a guess" }
      }
    }
  })
  cleanups.push(() => sim.close())
  return sim
}

// The sample's video under four ids and lengths, and its questions spread over them.
const videoLengths: Readonly<Record<string, number>> = { vidA: 600, vidB: 610, vidC: 1200, vidD: 1190 }
const videoOf: Readonly<Record<string, string>> = {
  "001-1": "vidA",
  "001-2": "vidA",
  "001-3": "vidB",
  "001-4": "vidB",
  "001-5": "vidC",
  "001-6": "vidC",
  "001-7": "vidD"
}

const writeTree = (trees: string, videoId: string, seconds: number) => {
  const text = readFileSync(join(samplesTrees, "vtSmpl0001a", "tree.json"), "utf8").replaceAll("vtSmpl0001a", videoId)
  mkdirSync(join(trees, videoId), { recursive: true })
  writeFileSync(join(trees, videoId, "tree.json"), JSON.stringify({ ...JSON.parse(text), duration_seconds: seconds }))
}

const fourVideos = (dir: string) => {
  const trees = join(dir, "trees")
  for (const [videoId, seconds] of Object.entries(videoLengths)) {
    writeTree(trees, videoId, seconds)
    cpSync(join(samplesTrees, "vtSmpl0001a", "frames"), join(trees, videoId, "frames"), { recursive: true })
  }
  const questions = join(dir, "questions.jsonl")
  writeFileSync(
    questions,
    readFileSync(samplesJsonl, "utf8").trim().split("\n").map((line) => {
      const row = JSON.parse(line) as Record<string, string>
      return JSON.stringify({ ...row, videoID: videoOf[row["question_id"]!] })
    }).join("\n") + "\n"
  )
  return { trees, questions }
}

describe("vtree infer --control (in-process CLI against openai-sim)", () => {
  it("blind: one agent call per question with the question and options alone, no tree, node id or tool", async () => {
    const sim = await blindSim(new Set(["001-2"]))
    const dir = folder()
    const db = join(dir, "runs.db")
    const result = await runCli(inferArgs(db, "--control", "blind", "--run-id", "blind-1"), simEnv(sim.url))
    assert.strictEqual(result.code, 0, result.stderr)

    const agentRequests = sim.requests.filter((r) => r.model === agentModel)
    assert.strictEqual(agentRequests.length, samples.length)
    assert.strictEqual(sim.requests.length, samples.length, "no tool, vision or embedding call")
    for (const request of agentRequests) {
      assert.isUndefined(request.body["tools"])
      const messages = messagesOf(request)
      assert.strictEqual(messages.length, 1)
      const prompt = messages[0]!.content
      assert.notMatch(prompt, /vtSmpl0001a|_L1_|view_node|search_similar|observe_frame|submit_answer/)
      const question = samples.find((q) => prompt.includes(q.question))!
      assert.isDefined(question)
    }
    const rows = predictions(db)
    assert.strictEqual(rows.length, samples.length)
    for (const row of rows) {
      assert.strictEqual(row.steps_used, 0)
      assert.strictEqual(row.stop_reason, "finished")
      assert.strictEqual(row.correct, row.question_id === "001-2" ? 0 : 1)
      assert.isAbove(row.prompt_tokens, 0)
    }
    // Counted like any agent call: one per question, role agent.
    assert.deepStrictEqual(
      calls(db).map((c) => [c.role, c.question_id]),
      samples.map((q) => ["agent", q.questionId]).sort()
    )
    assert.strictEqual(storedConfig(db)["control"], "blind")
    // The row says what the model was told: the task type, and no skill (the blind prompt carries none).
    const hints = readDb(db, (h) => h.prepare("SELECT benchmark_json FROM predictions").all()) as Array<
      { benchmark_json: string }
    >
    for (const { benchmark_json } of hints) {
      assert.isNull((JSON.parse(benchmark_json) as { hint: { skill: string | null } }).hint.skill)
    }
    assert.match(result.stdout, /Control run: blind control \(question and options alone, no video\)/)
    assert.match(result.stdout, /control\s+blind/)

    // The run it controls, then the comparison: what the video adds.
    const { sim: agentSim } = await setup()
    const run = await runCli(inferArgs(db, "--run-id", "tree-1"), simEnv(agentSim.url))
    assert.strictEqual(run.code, 0, run.stderr)
    const compared = await runCli(["report", "--db", db, "--compare", "tree-1", "blind-1"])
    assert.strictEqual(compared.code, 0, compared.stderr)
    assert.match(
      compared.stdout,
      /The video adds \+14\.3 points \(95 % interval −13\.7 to \+42\.3, paired over 7 keyed questions\) over what the model answers without it: run tree-1 against its blind control blind-1 \(B\)\./
    )
    const listed = await runCli(["runs", "--db", db])
    assert.match(listed.stdout, /blind-1\s+completed\s+Video-MME · blind control/)
    assert.notMatch(listed.stdout, /tree-1\s+completed\s+Video-MME · /)
  }, 90_000)

  it("chance: no provider call at all, the same draws for the same seed, the expected accuracy stated", async () => {
    const sim = await Sim.start({ chat: { "*": () => ({ fault: "status", status: 500 }) } })
    cleanups.push(() => sim.close())
    const dir = folder()
    const drawn = async (name: string, seed: string, env = simEnv(sim.url)) => {
      const db = join(dir, `${name}.db`)
      const result = await runCli(inferArgs(db, "--control", "chance", "--control-seed", seed, "--run-id", name), env)
      assert.strictEqual(result.code, 0, result.stderr)
      return { db, result, rows: predictions(db) }
    }
    const first = await drawn("chance-1", "5")
    // No model configured at all: a chance control needs none.
    const again = await drawn("chance-2", "5", {})
    const other = await drawn("chance-3", "6")
    assert.strictEqual(sim.requests.length, 0)
    assert.deepStrictEqual(calls(first.db), [])
    assert.deepStrictEqual(first.rows.map((r) => r.prediction), again.rows.map((r) => r.prediction))
    assert.notDeepEqual(first.rows.map((r) => r.prediction), other.rows.map((r) => r.prediction))
    for (const row of first.rows) {
      assert.include(["A", "B", "C", "D"], row.prediction)
      assert.strictEqual(row.steps_used, 0)
    }
    assert.include(storedConfig(first.db), { control: "chance", controlSeed: 5 })
    // A seed draws nothing for a blind control: refused before the run starts.
    const seeded = await runCli(
      inferArgs(join(dir, "blind.db"), "--control", "blind", "--control-seed", "2"),
      simEnv(sim.url)
    )
    assert.strictEqual(seeded.code, 1)
    assert.deepStrictEqual(vtreeLines(seeded.stderr), [
      "vtree: --control-seed 2: only --control shuffled and --control chance draw with a seed — drop --control-seed, or pick one of them"
    ])
    assert.match(
      first.result.stdout,
      /Control run: chance control \(seeded uniform draw, no model\) · seed 5 · expected accuracy 25\.0% \(mean of 1\/options over the keyed\), drawn \d+\.\d%/
    )
  }, 90_000)

  it(
    "shuffled: each video's questions over its nearest-duration partner's tree; the pairing is stored and --resume keeps it",
    async () => {
      const dir = folder()
      const { questions, trees } = fourVideos(dir)
      const db = join(dir, "runs.db")
      const args = (
        ...more: Array<string>
      ) => ["infer", "--trees", trees, "--questions", questions, "--db", db, ...more]
      // Every agent call fails: each question ends in error, to be asked again on --resume --retry-errors.
      const down = await Sim.start({ chat: { "*": () => ({ fault: "status", status: 500 }) } })
      cleanups.push(() => down.close())
      const first = await runCli(args("--control", "shuffled", "--run-id", "sh-1"), simEnv(down.url))
      assert.strictEqual(first.code, 0, first.stderr)
      assert.isTrue(predictions(db).every((row) => row.stop_reason === "error"))
      const pairs = { vidA: "vidB", vidB: "vidA", vidC: "vidD", vidD: "vidC" }
      assert.include(storedConfig(db), { control: "shuffled", controlSeed: 1 })
      assert.deepStrictEqual(storedConfig(db)["controlPairs"], pairs)

      // Lengths changed so that a pairing made now would differ: the run's own is kept.
      writeTree(trees, "vidA", 1195)
      writeTree(trees, "vidD", 590)
      const refused = await runCli(args("--resume", "--control", "blind"), simEnv(down.url))
      assert.strictEqual(refused.code, 1)
      assert.deepStrictEqual(vtreeLines(refused.stderr), [
        "vtree: --control blind: run sh-1 is a shuffled control — resume it without --control, or start a new run"
      ])
      const sim = await startSim()
      const resumed = await runCli(args("--resume", "--retry-errors"), simEnv(sim.url))
      assert.strictEqual(resumed.code, 0, resumed.stderr)
      assert.deepStrictEqual(storedConfig(db)["controlPairs"], pairs)
      assert.isTrue(predictions(db).every((row) => row.stop_reason === "finished" && row.correct === 1))

      // The agent was shown the partner's scenes and opened the partner's nodes, never its own video's.
      const firstAsks = sim.requests.filter((r) => r.model === agentModel && messagesOf(r).length === 2)
      assert.strictEqual(firstAsks.length, samples.length)
      for (const request of firstAsks) {
        const user = messagesOf(request)[1]!.content
        const question = samples.find((q) => user.includes(q.question))!
        const partner = pairs[videoOf[question.questionId] as keyof typeof pairs]
        assert.include(user, `${partner}_L1_000`)
        assert.notInclude(user, `${videoOf[question.questionId]}_L1_`)
      }
      const viewed = readDb(
        db,
        (h) => h.prepare("SELECT question_id, args_json FROM steps WHERE tool = 'view_node'").all()
      ) as Array<{ question_id: string; args_json: string }>
      assert.strictEqual(viewed.length, samples.length)
      for (const step of viewed) {
        const partner = pairs[videoOf[step.question_id] as keyof typeof pairs]
        assert.match((JSON.parse(step.args_json) as { node_id: string }).node_id, new RegExp(`^${partner}_L1_`))
      }
      assert.isTrue(sim.requests.some((r) => r.model === toolModel))
      // The row keeps the question's own video.
      assert.deepStrictEqual(
        readDb(db, (h) => h.prepare("SELECT question_id, video_id FROM predictions ORDER BY question_id").all()),
        Object.entries(videoOf).map(([question_id, video_id]) => ({ question_id, video_id }))
      )
      assert.match(resumed.stdout, /Control run: shuffled control \(another video's tree\) · seed 1 · 4 videos paired/)
    },
    120_000
  )
})
