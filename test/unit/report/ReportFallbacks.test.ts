// Searches answered by keywords after their embedding call failed: counted from the stored steps and
// printed as one line of the text report; nothing when no search fell back.
import { assert, describe, it } from "@effect/vitest"
import type { StepRow } from "../../../src/domain/RunRecord.js"
import { summarize } from "../../../src/programs/report/Report.js"
import { keywordFallbacks } from "../../../src/programs/report/ReportFallbacks.js"
import { renderText } from "../../../src/programs/report/ReportText.js"
import { keywordNote } from "../../../src/programs/tree/KeywordFallback.js"
import { prediction, step } from "../../support/harness/RunRows.js"

const search = (questionId: string, index: number, output: string): StepRow => ({
  questionId,
  ...step(index, { tool: "search_similar", args: { query: "q" }, output })
})

const fellBack = `${keywordNote("embed: no reply within 1m")}\n[Search results] query "q" → 1 nodes`

const steps: ReadonlyArray<StepRow> = [
  search("a", 1, fellBack),
  search("a", 2, fellBack),
  search("b", 1, `[Search results] query "q" → 1 nodes`),
  search("c", 1, fellBack),
  { questionId: "c", ...step(2, { output: fellBack }) }
]

const run = { runId: "r1", startedAt: 0, finishedAt: 10_000, status: "completed" as const }
const predictions = ["a", "b", "c"].map((questionId) => prediction({ questionId }))

describe("keyword fallbacks in the report", () => {
  it("counts the searches answered by keywords and the questions that had one", () => {
    assert.deepStrictEqual(keywordFallbacks(steps), { searches: 3, questions: 2 })
    assert.isNull(keywordFallbacks(steps.filter((s) => s.questionId === "b")))
    assert.isNull(keywordFallbacks(undefined))
  })

  it("prints one line in the text report, none when every search was semantic or keyword by choice", () => {
    assert.include(
      renderText(summarize({ run, predictions, calls: [], steps })),
      "Keyword fallbacks: 3 searches in 2 questions answered by keywords (BM25) because semantic search was unavailable"
    )
    assert.notInclude(
      renderText(summarize({ run, predictions, calls: [], steps: steps.slice(2, 3) })),
      "Keyword fallbacks"
    )
  })
})
