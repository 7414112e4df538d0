import { assert, describe, it } from "@effect/vitest"
import {
  clusteredProportion,
  mcnemarExact,
  mulberry32,
  pairedBootstrap,
  quantile,
  wilsonInterval
} from "../../../src/domain/Stats.js"

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

// Ten videos of three questions each, five wholly right and five wholly wrong: p̂ = 15/30 = 0.5.
// Residual sum per video: 3 · (1 − 0.5) = +1.5 (right) or −1.5 (wrong), so Σ_g e_g² = 10 · 2.25 = 22.5.
// Clustered variance = G/(G−1) · Σ e_g² / N² = 10/9 · 22.5 / 900 = 1/36, SE = 1/6 ≈ 0.166667.
// Plain SE = √(0.5 · 0.5 / 30) ≈ 0.091287; design effect = (1/6) / 0.091287 = √(10/3) ≈ 1.825742.
// Interval = 0.5 ± 1.959964 / 6 = [0.173339, 0.826661]; Wilson for 15/30 is [0.3315, 0.6685].
const wholeVideos = Array.from({ length: 10 }, (_, i) => ({ successes: i < 5 ? 3 : 0, trials: 3 }))

describe("clusteredProportion", () => {
  it("matches the hand-computed sandwich SE when whole videos are right or wrong, and is wider than Wilson", () => {
    const c = clusteredProportion(wholeVideos)!
    assert.strictEqual(c.clusters, 10)
    assert.closeTo(c.estimate, 0.5, 1e-12)
    assert.closeTo(c.se!, 1 / 6, 1e-9)
    assert.closeTo(c.plainSe, Math.sqrt(0.25 / 30), 1e-9)
    assert.closeTo(c.designEffect!, Math.sqrt(10 / 3), 1e-9)
    assert.closeTo(c.interval!.low, 0.173339, 1e-6)
    assert.closeTo(c.interval!.high, 0.826661, 1e-6)
    const wilson = wilsonInterval(15, 30)!
    assert.isTrue(c.interval!.low < wilson.low && c.interval!.high > wilson.high)
  })

  it("equals the plain SE times √(G/(G−1)) when every video holds one question, and clips to [0, 1]", () => {
    const single = Array.from({ length: 8 }, (_, i) => ({ successes: i < 6 ? 1 : 0, trials: 1 }))
    const c = clusteredProportion(single)!
    assert.closeTo(c.se!, c.plainSe * Math.sqrt(8 / 7), 1e-12)
    const skewed = clusteredProportion([{ successes: 5, trials: 5 }, { successes: 4, trials: 5 }])!
    assert.strictEqual(skewed.interval!.high, 1)
  })

  it("has no SE from a single video, no design effect when every answer agrees, and nothing without trials", () => {
    const one = clusteredProportion([{ successes: 2, trials: 4 }])!
    assert.deepStrictEqual([one.se, one.interval, one.designEffect], [null, null, null])
    const allRight = clusteredProportion([{ successes: 2, trials: 2 }, { successes: 3, trials: 3 }])!
    assert.deepStrictEqual([allRight.se, allRight.plainSe, allRight.designEffect], [0, 0, null])
    assert.isNull(clusteredProportion([]))
    assert.isNull(clusteredProportion([{ successes: 0, trials: 0 }]))
  })
})

describe("mulberry32", () => {
  it("repeats its sequence for a seed, differs for another, and stays in [0, 1)", () => {
    const draw = (seed: number) => {
      const next = mulberry32(seed)
      return Array.from({ length: 1000 }, () => next())
    }
    assert.deepStrictEqual(draw(7), draw(7))
    assert.notDeepEqual(draw(7), draw(8))
    const values = draw(1)
    assert.isTrue(values.every((v) => v >= 0 && v < 1))
    const mean = values.reduce((s, v) => s + v, 0) / values.length
    assert.closeTo(mean, 0.5, 0.05)
  })
})

// Twelve videos of two questions: B is right on both questions of the first eight, A on both of the first
// four; the rest both miss. B − A = (16 − 8) / 24 = 1/3.
const paired = Array.from(
  { length: 12 },
  (_, i) => ({ questions: 2, correctA: i < 4 ? 2 : 0, correctB: i < 8 ? 2 : 0 })
)

describe("pairedBootstrap", () => {
  it("states the observed difference, its resamples and seed, and a percentile interval around it", () => {
    const r = pairedBootstrap(paired, { resamples: 2000, seed: 1 })!
    assert.closeTo(r.difference, 1 / 3, 1e-12)
    assert.deepStrictEqual([r.resamples, r.seed, r.clusters], [2000, 1, 12])
    assert.isTrue(r.interval.low > 0 && r.interval.low < 1 / 3 && r.interval.high > 1 / 3 && r.interval.high <= 1)
    assert.isTrue(r.p < 0.05, `p = ${r.p}`)
  })

  it("is reproducible by seed: the same seed gives the same interval, another may differ", () => {
    const once = pairedBootstrap(paired, { resamples: 500, seed: 42 })!
    const again = pairedBootstrap(paired, { resamples: 500, seed: 42 })!
    assert.deepStrictEqual(again, once)
    const others = [43, 44, 45].map((seed) => pairedBootstrap(paired, { resamples: 500, seed })!)
    assert.isTrue(others.some((o) => o.interval.low !== once.interval.low || o.interval.high !== once.interval.high))
  })

  it("gives p = 1 and a zero-width interval when the runs agree on every video, and nothing without videos", () => {
    const same = Array.from({ length: 5 }, (_, i) => ({ questions: 3, correctA: i % 3, correctB: i % 3 }))
    const r = pairedBootstrap(same, { resamples: 200, seed: 1 })!
    assert.deepStrictEqual([r.difference, r.interval.low, r.interval.high, r.p], [0, 0, 0, 1])
    assert.isNull(pairedBootstrap([], { resamples: 200, seed: 1 }))
  })
})
