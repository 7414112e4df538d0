// Every benchmark through the command line, as a user runs it: `vtree infer --questions <the released
// file>` against openai-sim over HTTP (the agent model submits a scripted letter per question), then
// `vtree report --format json` and `vtree export --out`, with the figures and the exported values checked.
// Benchmarks.test.ts checks the same layouts through runBenchmark in finer detail.
import { assert, describe, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { formatUsd } from "../../../src/domain/Cost.js"
import {
  egoSchemaRows,
  egoSchemaSubset,
  json,
  jsonl,
  longVideoBenchRows,
  lvBenchLines,
  mlvuNeedle,
  mlvuPlotQa,
  nextQaCsv
} from "../../support/benchmarks/BenchmarkInputs.js"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import { agentModel } from "../../support/harness/Policy.js"
import * as Sim from "../../support/openai-sim/index.js"
import { writeSampleTreeAs } from "../../support/trees/SampleTree.js"

const firstLine = (text: string) => text.split("\n")[0]!

interface Case {
  readonly name: string
  readonly files: ReadonlyArray<readonly [string, string]>
  readonly questions: string
  readonly videos: ReadonlyArray<string>
  readonly more?: (dir: string) => ReadonlyArray<string>
  /** The letter the agent submits, by the first line of the question; null: an unreadable reply. */
  readonly answers: Readonly<Record<string, string | null>>
  /** Report JSON: [correct, wrong, unanswered, unscored, total] overall, and the primary figure if any. */
  readonly overall: readonly [number, number, number, number, number]
  readonly primary?: readonly [string, number]
  readonly exported: unknown
  /** Text the agent's user message must hold, by the first line of the question: what it is told. */
  readonly told?: Readonly<Record<string, string>>
}

const cases: ReadonlyArray<Case> = [
  {
    name: "lvbench",
    files: [["video_info.meta.jsonl", jsonl(...lvBenchLines)]],
    questions: "video_info.meta.jsonl",
    videos: lvBenchLines.map((line) => line.key),
    answers: {
      "What bird appears at the start of the video?": "A",
      "Why does the fox": "D",
      "What happens after the storm?": null
    },
    overall: [1, 1, 1, 0, 3],
    exported: { "1": "A", "2": "D", "3": "E" }
  },
  {
    name: "mlvu",
    files: [["json/1_plotQA.json", json(mlvuPlotQa)], ["json/2_needle.json", json(mlvuNeedle)]],
    questions: "json",
    videos: [...mlvuPlotQa, ...mlvuNeedle].map((row) => row.video.replace(/\.mp4$/, "")),
    answers: {
      "What color is the main male character in the video?": "A",
      "Where does the story take place?": "C",
      "What does the hand coming out of the computer do?": "A"
    },
    overall: [2, 1, 0, 0, 3],
    primary: ["M-Avg", 0.75],
    exported: [
      { question_id: "needle_0", question_type: "needle", option: "A" },
      { question_id: "plotQA_0", question_type: "plotQA", option: "A" },
      { question_id: "plotQA_1", question_type: "plotQA", option: "C" }
    ]
  },
  {
    name: "egoschema",
    files: [["questions.json", json(egoSchemaRows)], ["subset_answers.json", json(egoSchemaSubset)]],
    questions: "questions.json",
    videos: egoSchemaRows.map((row) => row.q_uid),
    more: (dir) => ["--answers", join(dir, "subset_answers.json")],
    answers: {
      [firstLine(egoSchemaRows[0]!.question)]: "D",
      [firstLine(egoSchemaRows[1]!.question)]: "A",
      [firstLine(egoSchemaRows[2]!.question)]: "C"
    },
    overall: [1, 1, 0, 1, 2],
    exported: { [egoSchemaRows[0]!.q_uid]: 3, [egoSchemaRows[1]!.q_uid]: 0, [egoSchemaRows[2]!.q_uid]: 2 },
    told: { [firstLine(egoSchemaRows[1]!.question)]: `"C" (or "c") is the person wearing the camera` }
  },
  {
    name: "nextqa",
    files: [["val.csv", nextQaCsv]],
    questions: "val.csv",
    videos: ["4010069381", "6233408665"],
    answers: {
      "why did the boy pick up one present from the group of them and move to the sofa": "D",
      "what did the man do after he said \"ok, go\"": "A",
      "how many people are there": "A"
    },
    overall: [2, 1, 0, 0, 3],
    exported: {
      "4010069381_6": { prediction: 3, answer: 3 },
      "4010069381_7": { prediction: 0, answer: 1 },
      "6233408665_2": { prediction: 0, answer: 0 }
    },
    told: {
      "why did the boy pick up one present from the group of them and move to the sofa": `Task type: causal "why" (CW)`,
      "how many people are there": "Task type: descriptive count (DC)"
    }
  },
  {
    name: "custom",
    files: [[
      "mine.jsonl",
      jsonl(
        { videoID: "kitchen", question_id: "k1", question: "How many eggs?", options: ["1", "2"], answer: "B" },
        {
          videoID: "kitchen",
          question_id: "k2",
          question: "Why stir?",
          options: ["A. mix", "B. cool"],
          task_type: "CW"
        }
      )
    ]],
    questions: "mine.jsonl",
    videos: ["kitchen"],
    answers: { "How many eggs?": "B", "Why stir?": "A" },
    overall: [1, 0, 0, 1, 1],
    exported: [
      { question_id: "k1", videoID: "kitchen", answer: "B", prediction: "B" },
      { question_id: "k2", videoID: "kitchen", answer: null, prediction: "A" }
    ],
    told: { "Why stir?": `Task type: causal "why" (CW)` }
  },
  {
    name: "longvideobench",
    files: [["lvb_val.json", json(longVideoBenchRows)]],
    questions: "lvb_val.json",
    videos: longVideoBenchRows.map((row) => row.video_path.replace(/\.mp4$/, "")),
    answers: { [longVideoBenchRows[0]!.question]: "D", [longVideoBenchRows[1]!.question]: null },
    overall: [1, 0, 1, 0, 2],
    exported: { "-8lu-6Vx8as_1": "F", "86CxyhFV9MI_0": "D" }
  }
]

/** The official score the report puts beside the strict one, [value, denominator], by each scorer's rule. */
const officials: Readonly<Record<string, readonly [number, number]>> = {
  // compute_accuracy.py: every exported uid; the unanswered one's "E" is wrong → 1/3.
  lvbench: [1 / 3, 3],
  // M-Avg: needle 1/1, plotQA 1/2 → 0.75.
  mlvu: [0.75, 3],
  egoschema: [1 / 2, 2],
  nextqa: [2 / 3, 3],
  custom: [1, 1],
  // The unreadable reply is exported "F" of five options: a random option to the scorer, 1/5 expected → 1.2/2.
  longvideobench: [0.6, 2]
}

/** The first line of the question in an agent request's user message. */
const questionIn = (request: Sim.SimRequest): string => {
  const messages = request.body["messages"] as ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  const user = messages.find((m) => m.role === "user")
  return /^Question: (.*)$/m.exec(typeof user?.content === "string" ? user.content : "")?.[1] ?? ""
}

describe("every benchmark through the CLI (infer → report → export) against openai-sim", () => {
  for (const c of cases) {
    it(`${c.name}: the file as released is read, scored by its own rule and exported for its scorer`, async () => {
      const temp = tempDir()
      const userMessages = new Map<string, string>()
      const sim = await Sim.start({
        chat: {
          [agentModel]: (request) => {
            const messages = request.body["messages"] as ReadonlyArray<
              { readonly role: string; readonly content: unknown }
            >
            const user = messages.find((m) => m.role === "user")?.content
            if (typeof user === "string") userMessages.set(questionIn(request), user)
            const letter = c.answers[questionIn(request)]
            if (letter === undefined) return { content: `unscripted question ${JSON.stringify(questionIn(request))}` }
            return {
              content: letter === null
                ? "I cannot tell."
                : JSON.stringify({ reflect: {}, plan: {}, action: { tool: "submit_answer", args: { answer: letter } } })
            }
          }
        }
      })
      try {
        const dir = temp.dir
        for (const [name, text] of c.files) {
          mkdirSync(dirname(join(dir, name)), { recursive: true })
          writeFileSync(join(dir, name), text)
        }
        for (const video of c.videos) writeSampleTreeAs(join(dir, "trees"), video)
        const db = join(dir, "runs.db")
        // Priced, so the progress line can say what the run spent.
        const env = simEnv(sim.url, { VTREE_OCR: "off", VTREE_AGENT_PRICE: "0.6,0.15,2.4" })
        const infer = await runCli(
          [
            "infer",
            "--trees",
            join(dir, "trees"),
            "--questions",
            join(dir, c.questions),
            "--db",
            db,
            "--run-id",
            "r1",
            "--max-steps",
            "2",
            ...(c.more?.(dir) ?? [])
          ],
          env
        )
        assert.strictEqual(infer.code, 0, infer.stderr)
        for (const [question, text] of Object.entries(c.told ?? {})) {
          assert.include(userMessages.get(question), text, question)
        }

        const report = await runCli(["report", "--db", db, "--format", "json"], env)
        assert.strictEqual(report.code, 0, report.stderr)
        const summary = JSON.parse(report.stdout) as {
          benchmark: string
          overall: {
            correct: number
            wrong: number
            unanswered: number
            unscored: number
            total: number
            accuracy: number | null
          }
          primary: { name: string; value: number } | null
          cost: { total: number | null }
          scores: { official: { value: number | null; denominator: number } }
        }
        assert.strictEqual(summary.benchmark, c.name)
        // The last progress line agrees with the report: accuracy over the keyed questions, and the USD spent.
        const progress = infer.stderr.split("\n").filter((line) => line.startsWith("vtree: run r1: ")).at(-1) ?? ""
        const accuracy = summary.overall.accuracy === null ? "—" : `${(summary.overall.accuracy * 100).toFixed(1)}%`
        assert.include(progress, ` · acc ${accuracy} · `)
        assert.isNotNull(summary.cost.total)
        assert.include(progress, ` · ${formatUsd(summary.cost.total)} · `)
        const { correct, total, unanswered, unscored, wrong } = summary.overall
        assert.deepStrictEqual([correct, wrong, unanswered, unscored, total], [...c.overall])
        if (c.primary === undefined) assert.isNull(summary.primary)
        else {
          assert.strictEqual(summary.primary?.name, c.primary[0])
          assert.closeTo(summary.primary!.value, c.primary[1], 1e-9)
        }
        const official = officials[c.name]
        if (official !== undefined) {
          assert.closeTo(summary.scores.official.value!, official[0], 1e-9)
          assert.strictEqual(summary.scores.official.denominator, official[1])
        }

        const out = join(dir, "results.json")
        const exported = await runCli(["export", "--db", db, "--out", out], env)
        assert.strictEqual(exported.code, 0, exported.stderr)
        const value = JSON.parse(readFileSync(out, "utf8")) as unknown
        assert.deepStrictEqual(
          Array.isArray(value)
            ? [...value].sort((a, b) => (String(a.question_id) < String(b.question_id) ? -1 : 1))
            : value,
          c.exported
        )

        // --resume reads the questions as the run did: its benchmark and its --answers file, unless given.
        const resumed = await runCli(
          ["infer", "--trees", join(dir, "trees"), "--db", db, "--run-id", "r1", "--resume"],
          env
        )
        assert.strictEqual(resumed.code, 0, resumed.stderr)
      } finally {
        await sim.close()
        temp.cleanup()
      }
    })
  }
})
