import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { StoredRunConfig } from "../../../src/domain/RunConfig.js"
import { summarize } from "../../../src/programs/report/Report.js"
import { renderHtml } from "../../../src/programs/report/ReportHtml.js"
import { renderText } from "../../../src/programs/report/ReportText.js"
import { prediction } from "../../support/harness/RunRows.js"

/** config_json as the store decodes it. */
const stored = Schema.decodeUnknownSync(StoredRunConfig)
const runProtocol = (config: unknown) => stored(config ?? {}).protocol

const run = { runId: "run-1", startedAt: 0, finishedAt: 1_000, status: "completed" as const }

describe("the protocol a run used", () => {
  it("is read from the run's config; runs stored before it was recorded used json", () => {
    assert.strictEqual(runProtocol({ protocol: "tools", concurrency: 3 }), "tools")
    assert.strictEqual(runProtocol({ protocol: "json" }), "json")
    assert.strictEqual(runProtocol({ concurrency: 3 }), "json")
    assert.strictEqual(runProtocol(null), "json")
  })

  it("is stated by the report", () => {
    const summary = summarize({
      run: { ...run, config: stored({ protocol: "tools" }) },
      predictions: [prediction({ questionId: "q1" })],
      calls: []
    })
    assert.strictEqual(summary.protocol, "tools")
    // Fourth: after the run line, the accuracy and its interval clustered by video.
    assert.include(renderText(summary).split("\n").slice(0, 4), "Protocol tools")
    assert.include(
      renderHtml({ run: { ...run, config: stored({ protocol: "tools" }) }, predictions: [], steps: [], calls: [] }),
      "<tr><td>Protocol</td><td>tools</td></tr>"
    )
    assert.strictEqual(summarize({ run, predictions: [], calls: [] }).protocol, "json")
  })
})
