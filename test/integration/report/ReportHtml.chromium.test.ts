import { assert, describe, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { compareRuns, NoSharedQuestions } from "../../../src/programs/report/ReportCompare.js"
import { renderCompareHtml } from "../../../src/programs/report/ReportCompareHtml.js"
import { renderHtml } from "../../../src/programs/report/ReportHtml.js"
import type { ReportPrediction } from "../../../src/programs/report/Summary.js"
import { countColor, dumpDom, screenshot } from "../../support/harness/Chromium.js"
import { call, prediction, step } from "../../support/harness/RunRows.js"
import { makeTempDir, removeTempDir } from "../../support/TempDir.js"

const dir = makeTempDir("html")
afterAll(() => removeTempDir(dir))

const types = ["Counting Problem", "OCR Problems", "Temporal Reasoning"]
const run = (rightEvery: number): ReadonlyArray<ReportPrediction> =>
  Array.from({ length: 30 }, (_, i) =>
    prediction({
      questionId: `q${String(i).padStart(2, "0")}`,
      taskType: types[i % 3]!,
      duration: (["short", "medium", "long"] as const)[i % 3]!,
      prediction: i % 7 === 6 ? null : i % rightEvery === 0 ? "B" : "C",
      correct: i % rightEvery === 0 && i % 7 !== 6,
      promptTokens: 1_234_567
    }))

// Colors the pages draw with: accuracy bars, A's bars on the comparison, the error bars.
const blue = "#2f81f7"
const gray = "#8c959f"
const ink = "#1f2328"

// Each test launches headless Chromium once or twice; on a loaded 2-core machine a launch alone can take tens of
// seconds, so the bound is generous. It bounds a hang, not the speed: nothing here measures time.
describe("the html report in headless Chromium", { timeout: 120_000 }, () => {
  it("draws the accuracy charts with their error bars, and the page script runs (the filter counter)", () => {
    const predictions = run(2)
    const file = join(dir, "report.html")
    writeFileSync(
      file,
      renderHtml({
        run: { runId: "run-1", startedAt: 0, finishedAt: 60_000, status: "completed" },
        predictions,
        steps: [{ questionId: "q00", ...step(1) }],
        calls: [call({ questionId: "q00", startedAt: 1_200, durationMs: 300 })]
      })
    )
    const shot = screenshot(file, 1200, 1600)
    // Bars are blue; error bars are drawn in ink on top of them. Both must reach the screen.
    assert.isAbove(countColor(shot, blue), 2_000)
    assert.isAbove(countColor(shot, ink, 30), 200)

    const dom = dumpDom(file)
    assert.strictEqual((dom.match(/<g class="err"/g) ?? []).length, types.length + 3)
    // The script ran: the filter's counter reads the rows it shows, with a thousands separator where due.
    assert.include(dom, `<span id="f-count" class="muted">30 shown</span>`)
    // Trajectories are filled on opening: by the link's #q0, the first one with its steps and timeline.
    // Closed, a trajectory is only its summary line (its body is packed in #bodies, unpacked on opening).
    assert.match(dom, /<details class="q" id="q0" data-body="0"><summary>[^]*?<\/summary><\/details>/)
    const timelines = (page: string) => (page.match(/<svg class="timeline"/g) ?? []).length
    // Opening unpacks the trajectory bodies asynchronously: give the page time to finish.
    const opened = dumpDom(`${file}#q0`, { settleMs: 5_000 })
    const shell = /<details class="q" id="q0"([^>]*)>/.exec(opened)?.[1] ?? ""
    assert.include(shell, `open=""`)
    assert.include(shell, `data-filled="1"`)
    assert.strictEqual(timelines(opened), timelines(dom) + 1)
    assert.include(opened, `<details class="step"><summary>Step 1 · view_node</summary>`)
    assert.include(opened, "1,234,567")
  })

  it("shows the first rows at once and builds the rest after the first paint; sorting and links see them all", () => {
    const many = Array.from(
      { length: 250 },
      (_, i) => prediction({ questionId: `m${String(i).padStart(3, "0")}`, taskType: types[i % 3]!, promptTokens: i })
    )
    const file = join(dir, "many.html")
    const page = renderHtml({
      run: { runId: "run-m", startedAt: 0, finishedAt: 1, status: "completed" },
      predictions: many,
      steps: [],
      calls: []
    })
    writeFileSync(file, page)
    const rows = (html: string) => (html.match(/<tr data-type=/g) ?? []).length
    const shells = (html: string) => (html.match(/<details class="q" id="q\d+" data-body/g) ?? []).length
    // As sent: 100 rows and 100 shells are markup; the rest is the inert text of two script elements.
    const [tableSent, restSent] = page.split(`<script type="text/html" id="rest-rows">`)
    assert.strictEqual(rows(tableSent!), 100)
    assert.strictEqual(rows(restSent!.split("</script>")[0]!), 150)
    // In the browser, once the page has settled, every row and shell is in place, in order.
    const settled = dumpDom(file, { settleMs: 5_000 })
    assert.include(settled, `data-complete="1"`)
    const table = settled.slice(
      settled.indexOf(`<table id="questions">`),
      settled.indexOf("</table>", settled.indexOf(`<table id="questions">`))
    )
    assert.strictEqual(rows(table), 250)
    assert.isBelow(table.indexOf(">m099<"), table.indexOf(">m100<"))
    const container = settled.slice(settled.indexOf(`<div id="trajectories">`))
    assert.strictEqual(shells(container.slice(0, container.indexOf("</div>\n<script"))), 250)
    // A link to a deferred trajectory opens it even before the rest was built.
    const opened = dumpDom(`${file}#q240`, { settleMs: 5_000 })
    assert.match(opened, /<details class="q" id="q240" data-body="240" data-filled="1" open="">/)
  })

  it("draws the comparison page: paired bars for A and B, each with an error bar, and the verdict", () => {
    const c = compareRuns({ runId: "A", source: "a.db", predictions: run(3) }, {
      runId: "B",
      source: "b.db",
      predictions: run(2)
    })
    if (c instanceof NoSharedQuestions) throw new Error("expected shared questions")
    const file = join(dir, "compare.html")
    writeFileSync(
      file,
      renderCompareHtml(c, { predictions: run(3), steps: [], calls: [] }, { predictions: run(2), steps: [], calls: [] })
    )
    const shot = screenshot(file, 1200, 1600)
    assert.isAbove(countColor(shot, gray), 1_000)
    assert.isAbove(countColor(shot, blue), 1_000)
    assert.isAbove(countColor(shot, ink, 30), 200)
    const dom = dumpDom(file)
    assert.include(dom, "<h1>Run comparison</h1>")
    assert.match(dom, /<td id="verdict">difference (not )?significant at 5 %/)
    // Overall, 3 task types and 3 durations, two error bars each.
    assert.strictEqual((dom.match(/<g class="err"/g) ?? []).length, 2 * (1 + 3 + 3))
  })
})
