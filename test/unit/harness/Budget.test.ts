import { assert, describe, it } from "@effect/vitest"
import { Budget } from "../../../src/programs/harness/Budget.js"

describe("Budget", () => {
  it("starts while spent plus the in-flight estimate fits, then stops starting for good", () => {
    const budget = new Budget(1)
    // Nothing finished yet: no estimate, both start.
    assert.deepStrictEqual([budget.tryStart(), budget.tryStart()], [true, true])
    budget.finish(0.3)
    // Spent 0.3, one in flight at ~0.3, a new one ~0.3: 0.9 ≤ 1.
    assert.isTrue(budget.tryStart())
    budget.finish(0.3)
    // Spent 0.6, one in flight ~0.3, a new one ~0.3: 1.2 > 1.
    assert.isFalse(budget.tryStart())
    assert.isTrue(budget.stopped)
    budget.finish(0.3)
    assert.isFalse(budget.tryStart())
    assert.closeTo(budget.spentUsd, 0.9, 1e-12)
  })

  it("counts what a resumed run spent before, and stops on a question of unknown cost", () => {
    assert.isFalse(new Budget(1, 1).tryStart())
    const resumed = new Budget(2, 1)
    assert.isTrue(resumed.tryStart())
    resumed.finish(null)
    assert.isTrue(resumed.stopped)
  })
})
