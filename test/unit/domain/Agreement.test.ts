import { assert, describe, it } from "@effect/vitest"
import { fleissKappa, pairAgreement } from "../../../src/domain/Agreement.js"

// The worked example of Fleiss' kappa on Wikipedia ("Fleiss' kappa", Worked example): 10 subjects, 14 raters,
// 5 categories; P̄ = 0.378, P̄e = 0.213, κ = 0.210.
const wikipedia = [
  [0, 0, 0, 0, 14],
  [0, 2, 6, 4, 2],
  [0, 0, 3, 5, 6],
  [0, 3, 9, 2, 0],
  [2, 2, 8, 1, 1],
  [7, 7, 0, 0, 0],
  [3, 2, 6, 3, 0],
  [2, 5, 3, 2, 2],
  [6, 5, 2, 1, 0],
  [0, 2, 2, 3, 7]
]

describe("fleissKappa", () => {
  it("gives the published value of Wikipedia's worked example (κ = 0.210)", () => {
    assert.closeTo(fleissKappa(wikipedia)!, 0.20993, 5e-5)
  })

  it("is 1 when every rater agrees on items of both categories, and about 0 or below when they split by chance", () => {
    assert.strictEqual(fleissKappa([[3, 0], [0, 3], [3, 0]]), 1)
    assert.isBelow(fleissKappa([[1, 1], [1, 1], [1, 1]])!, 0)
  })

  it("is undefined (null) without items, with one rater, with unequal raters per item, or when every rating is one category", () => {
    assert.isNull(fleissKappa([]))
    assert.isNull(fleissKappa([[1, 0], [0, 1]]))
    assert.isNull(fleissKappa([[2, 0], [1, 0]]))
    assert.isNull(fleissKappa([[3, 0], [3, 0]]))
  })
})

describe("pairAgreement", () => {
  it("counts the items both raters labelled and the share on which they agree", () => {
    const a = new Map([["q1", "correct"], ["q2", "incorrect"], ["q3", "correct"], ["q4", "correct"]])
    const b = new Map([["q1", "correct"], ["q2", "correct"], ["q3", "correct"]])
    assert.deepStrictEqual(pairAgreement(a, b), { agree: 2, compared: 3, share: 2 / 3 })
    assert.deepStrictEqual(pairAgreement(a, new Map()), { agree: 0, compared: 0, share: null })
  })
})
