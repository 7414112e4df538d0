// What `vtree tree import` prints: one line per tree and the totals; model cards that came back unusable
// twice (degraded) are counted on their tree's line and under the totals, never left unsaid.
import { assert, describe, it } from "@effect/vitest"
import { renderImportSummary } from "../../../../src/cli/tree/TreeImportRun.js"
import type { ImportSummary } from "../../../../src/programs/import/ImportTree.js"

const summary: ImportSummary = {
  videoId: "ego1",
  treeDir: "trees/ego1",
  format: "llovi",
  captions: 180,
  events: 9,
  scenes: 1,
  frames: null,
  cards: "model",
  calls: 19,
  reused: 0,
  degraded: { events: 9, scenes: 0 }
}

describe("the import summary", () => {
  it("counts degraded cards on the tree's line and says what they are under the totals", () => {
    const text = renderImportSummary([summary, {
      ...summary,
      videoId: "ego2",
      treeDir: "trees/ego2",
      degraded: { events: 0, scenes: 1 }
    }])
    assert.include(
      text,
      "trees/ego1: 180 captions → 1 scene, 9 events (llovi; cards: model, 19 calls, 9 degraded; frames: none)"
    )
    assert.include(
      text,
      "trees/ego2: 180 captions → 1 scene, 9 events (llovi; cards: model, 19 calls, 1 degraded; frames: none)"
    )
    assert.include(text, "imported 2 trees (360 captions)")
    assert.include(text, "degraded cards: 9 events, 1 scene — the model's reply could not be read twice")
  })

  it("counts calls answered from checkpoints, and says nothing of degraded cards when there are none", () => {
    const text = renderImportSummary([{ ...summary, calls: 0, reused: 10, degraded: { events: 0, scenes: 0 } }])
    assert.include(text, "(llovi; cards: model, 0 calls, 10 reused; frames: none)")
    assert.notInclude(text, "degraded")
    const offline = renderImportSummary([{
      ...summary,
      cards: "deterministic",
      calls: 0,
      degraded: { events: 0, scenes: 0 }
    }])
    assert.include(offline, "cards: captions joined; frames: none")
  })
})
