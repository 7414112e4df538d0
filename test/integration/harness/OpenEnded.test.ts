// Open-ended questions and answers that were not clean (issues 40 item 5, 41 item 2): `vtree infer` run
// in-process against openai-sim over a hand-written question file mixing open and multiple-choice rows.
// The stored answer_text is the model's text whole, an open question is unscored (never wrong), and the
// reports count each answer's form.
import { assert, describe, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { readDb, samplesTrees, simEnv } from "../../support/harness/Cli.js"
import type { SampleQuestion } from "../../support/harness/Policy.js"
import { simRuns } from "../../support/harness/SimRuns.js"

const video = "vtSmpl0001a"
// What the scripted model submits, by question: several lines, quotes and CJK for the open one.
const modelText = "The host fries four eggs, then adds \"a pinch\" of salt.\nLast: 葱花 — seen at 0:04:10."
const questionFile = [
  {
    videoID: video,
    question_id: "open-1",
    question: "What does the host cook, and what is added last?",
    answer: "Four eggs; salt is added last."
  },
  {
    videoID: video,
    question_id: "mc-clean",
    question: "How many eggs does the host cook in the skillet?",
    options: ["A. Two", "B. Three", "C. Four", "D. Six"],
    answer: "C"
  },
  {
    videoID: video,
    question_id: "mc-extracted",
    question: "What color is the bell pepper the host dices?",
    options: ["Green", "Yellow", "Orange", "Red"],
    answer: "D"
  },
  {
    videoID: video,
    question_id: "mc-invalid",
    question: "Which utensil turns the eggs?",
    options: ["A. Spatula", "B. Fork"],
    answer: "A"
  }
]
const submitted: Record<string, string> = {
  "open-1": modelText,
  "mc-clean": "C",
  "mc-extracted": "Red, so the answer is D.",
  "mc-invalid": "E"
}
const policyQuestions: ReadonlyArray<SampleQuestion> = questionFile.map((row) => ({
  questionId: row.question_id,
  question: row.question,
  answer: submitted[row.question_id]!,
  videoId: video,
  taskType: ""
}))

const { setup } = simRuns(policyQuestions)

interface Row {
  readonly question_id: string
  readonly answer: string | null
  readonly prediction: string | null
  readonly answer_text: string | null
  readonly answer_form: string | null
  readonly options_json: string
  readonly correct: number
}

const rowsOf = (db: string) =>
  new Map(
    readDb(db, (h) =>
      h.prepare(
        "SELECT question_id, answer, prediction, answer_text, answer_form, options_json, correct FROM predictions"
      ).all() as Array<Row>).map((row) => [row.question_id, row])
  )

const writeQuestions = (dir: string): string => {
  const file = join(dir, "open.json")
  writeFileSync(file, JSON.stringify(questionFile, null, 2))
  return file
}

describe("vtree infer on open-ended questions", () => {
  it("stores the model's text whole, the open question unscored, and every answer's form in the reports", async () => {
    const { db, dir, sim } = await setup({ viewSteps: 1 })
    const questions = writeQuestions(dir)
    const result = await runCli(
      ["infer", "--trees", samplesTrees, "--questions", questions, "--db", db, "--run-id", "open-run"],
      simEnv(sim.url)
    )
    assert.strictEqual(result.code, 0, result.stderr)

    const rows = rowsOf(db)
    const open = rows.get("open-1")!
    assert.deepStrictEqual(
      [open.answer_text, open.answer_form, open.prediction, open.options_json, open.answer, open.correct],
      [modelText, "free", null, "[]", "Four eggs; salt is added last.", 0]
    )
    assert.deepStrictEqual(
      ["mc-clean", "mc-extracted", "mc-invalid"].map((id) => {
        const row = rows.get(id)!
        return [row.prediction, row.answer_form, row.answer_text]
      }),
      [["C", "clean", "C"], ["D", "extracted", "Red, so the answer is D."], [null, "invalid", "E"]]
    )
    // The agent was told, where the options would be, that the question is open and to answer in words.
    const asked = sim.requests.find((request) => JSON.stringify(request.body).includes("what is added last"))!
    assert.include(
      JSON.stringify(asked.body),
      "Options:\\n(none: this is an open question — submit your answer in words"
    )

    // Two of three keyed right (the invalid answer counts wrong in the strict score); the open one unscored.
    assert.include(result.stdout, "Accuracy 66.7%")
    assert.include(result.stdout, "(2/3)")
    assert.include(result.stdout, "unscored 1")
    assert.include(
      result.stdout,
      "Answers as submitted: clean 1 · extracted 1 · invalid 1 (scored as unanswered) · empty 0 · free 1"
    )

    const report = await runCli(["report", "--db", db, "--run-id", "open-run", "--format", "json"])
    assert.strictEqual(report.code, 0, report.stderr)
    const json = JSON.parse(report.stdout)
    assert.deepStrictEqual(json.answerForms, {
      clean: 1,
      extracted: 1,
      invalid: 1,
      empty: 0,
      free: 1,
      none: 0,
      unrecorded: 0
    })
    const openLine = json.perQuestion.find((q: { questionId: string }) => q.questionId === "open-1")
    assert.deepStrictEqual([openLine.outcome, openLine.answerText, openLine.prediction], [
      "unscored",
      modelText,
      null
    ])
  }, 60_000)

  it("with --protocol tools and a spent step budget, the final-answer call takes the open answer whole", async () => {
    const { db, dir, sim } = await setup({ viewSteps: 2, protocol: "tools" })
    const questions = writeQuestions(dir)
    const result = await runCli(
      [
        "infer",
        "--trees",
        samplesTrees,
        "--questions",
        questions,
        "--db",
        db,
        "--protocol",
        "tools",
        "--max-steps",
        "1"
      ],
      simEnv(sim.url)
    )
    assert.strictEqual(result.code, 0, result.stderr)
    const open = rowsOf(db).get("open-1")!
    assert.deepStrictEqual([open.answer_text, open.answer_form, open.prediction], [modelText, "free", null])
    const forced = readDb(
      db,
      (h) =>
        h.prepare("SELECT forced, stop_reason FROM predictions WHERE question_id = 'open-1'").get() as {
          forced: number
          stop_reason: string
        }
    )
    assert.deepStrictEqual([forced.forced, forced.stop_reason], [1, "budget_exceeded"])
    const offered = sim.requests
      .filter((request) => Array.isArray(request.body["tools"]))
      .flatMap((request) => request.body["tools"] as ReadonlyArray<{ function: Record<string, unknown> }>)
      .find((tool) => tool.function["name"] === "submit_answer")!
    const parameters = offered.function["parameters"] as { properties: Record<string, unknown> }
    assert.deepStrictEqual(parameters.properties["answer"], { type: "string" })
  }, 60_000)
})
