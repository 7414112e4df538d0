import { assert, describe, it } from "@effect/vitest"
import { mcnemarExact, quantile, wilsonInterval } from "../../../src/domain/Stats.js"

const rounded = (interval: { low: number; high: number } | null) =>
  interval === null ? null : [Number(interval.low.toFixed(4)), Number(interval.high.toFixed(4))]

describe("wilsonInterval", () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics in
  // Medicine 17:857–872, Table I, method 3 (score interval without continuity correction).
  it("matches Newcombe's published 95% score intervals", () => {
    assert.deepStrictEqual(rounded(wilsonInterval(81, 263)), [0.2553, 0.3662])
    assert.deepStrictEqual(rounded(wilsonInterval(15, 148)), [0.0624, 0.1605])
    assert.deepStrictEqual(rounded(wilsonInterval(0, 20)), [0, 0.1611])
    assert.deepStrictEqual(rounded(wilsonInterval(1, 29)), [0.0061, 0.1718])
  })

  it("stays inside [0, 1], is symmetric in success and failure, and is null without trials", () => {
    assert.deepStrictEqual(rounded(wilsonInterval(20, 20)), [0.8389, 1])
    const a = wilsonInterval(2, 7)!
    const b = wilsonInterval(5, 7)!
    assert.closeTo(a.low, 1 - b.high, 1e-12)
    assert.closeTo(a.high, 1 - b.low, 1e-12)
    assert.isNull(wilsonInterval(0, 0))
  })
})

describe("mcnemarExact", () => {
  it("is twice the binomial tail of the smaller discordant count", () => {
    // 0 vs 6: 2 · (1/2)^6.
    assert.closeTo(mcnemarExact(0, 6), 0.03125, 1e-12)
    // 2 vs 8: 2 · (1 + 10 + 45) / 1024.
    assert.closeTo(mcnemarExact(2, 8), 112 / 1024, 1e-12)
    assert.strictEqual(mcnemarExact(8, 2), mcnemarExact(2, 8))
  })

  it("is 1 when the runs agree everywhere or split evenly, and stays finite for thousands of pairs", () => {
    assert.strictEqual(mcnemarExact(0, 0), 1)
    assert.strictEqual(mcnemarExact(5, 5), 1)
    const p = mcnemarExact(1000, 1100)
    assert.isTrue(p > 0.02 && p < 0.04, `p = ${p}`)
  })
})

describe("quantile", () => {
  it("picks by nearest rank", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]
    assert.deepStrictEqual([quantile(values, 0.5), quantile(values, 0.9), quantile(values, 1)], [5, 9, 10])
    assert.isNull(quantile([], 0.5))
  })
})
