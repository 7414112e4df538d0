// The statistics a report states: pure functions, no Effect, tested against published values.

/** The 0.975 quantile of the standard normal: a two-sided 95 % interval. */
export const z95 = 1.959963984540054

export interface Interval {
  readonly low: number
  readonly high: number
}

/**
 * The Wilson score interval of `successes` out of `trials` (Wilson 1927; Newcombe 1998, method 3).
 * Unlike p ± z·se it stays inside [0, 1] and is honest for small n: 0/7 gives [0, 35.4 %], not [0, 0].
 * Null when there are no trials.
 */
export const wilsonInterval = (successes: number, trials: number, z: number = z95): Interval | null => {
  if (trials <= 0) return null
  const p = successes / trials
  const z2 = z * z
  const denominator = 1 + z2 / trials
  const center = (p + z2 / (2 * trials)) / denominator
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) }
}

/** ln(n!) for n ≥ 0, exact enough for binomial tails up to millions of trials. */
const logFactorial = (() => {
  const cache: Array<number> = [0]
  return (n: number): number => {
    for (let i = cache.length; i <= n; i++) cache.push(cache[i - 1]! + Math.log(i))
    return cache[n]!
  }
})()

/**
 * The exact (binomial) McNemar test on paired outcomes: `onlyA` pairs right in A only, `onlyB` right in B
 * only. Two-sided p = 2·P(X ≤ min(b, c)) for X ~ Bin(b + c, ½), capped at 1; 1 when nothing differs.
 * Summed in log space so thousands of discordant pairs neither underflow nor overflow.
 */
export const mcnemarExact = (onlyA: number, onlyB: number): number => {
  const n = onlyA + onlyB
  if (n === 0) return 1
  const k = Math.min(onlyA, onlyB)
  const logHalfN = n * Math.log(0.5)
  let tail = 0
  for (let i = 0; i <= k; i++) {
    tail += Math.exp(logFactorial(n) - logFactorial(i) - logFactorial(n - i) + logHalfN)
  }
  return Math.min(1, 2 * tail)
}

/** The q-quantile (0 ≤ q ≤ 1) of `values` by the nearest-rank method: always a value that occurred. */
export const quantile = (values: ReadonlyArray<number>, q: number): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil(q * sorted.length))
  return sorted[rank - 1]!
}

/** One cluster (a video) of binary outcomes: how many of its `trials` questions were right. */
export interface ClusterCount {
  readonly successes: number
  readonly trials: number
}

/** A proportion with its standard error clustered by video, beside the plain (per-question) one. */
export interface ClusteredProportion {
  /** Clusters (videos) with at least one trial. */
  readonly clusters: number
  readonly trials: number
  readonly estimate: number
  /** The cluster-robust SE; null with fewer than two clusters (the G/(G−1) factor is undefined). */
  readonly se: number | null
  /** √(p(1−p)/n): what the SE would be were the questions independent. */
  readonly plainSe: number
  /** se / plainSe (a ratio of SEs, not of variances); null when either is missing or plainSe is 0. */
  readonly designEffect: number | null
  /** estimate ± z·se, clipped to [0, 1]; null without an SE. */
  readonly interval: Interval | null
}

/**
 * The proportion of successes with the cluster-robust (sandwich) standard error: the questions of one
 * video are correlated, so their residuals are summed per video before squaring,
 * Var = G/(G−1) · Σ_g (Σ_{i∈g} (y_i − p̂))² / N² (Liang–Zeger 1986; the G/(G−1) factor as Stata's
 * `vce(cluster)` for a mean). With one question per video it is the plain SE times √(G/(G−1)).
 */
export const clusteredProportion = (
  clusters: ReadonlyArray<ClusterCount>,
  z: number = z95
): ClusteredProportion | null => {
  const used = clusters.filter((c) => c.trials > 0)
  const trials = used.reduce((sum, c) => sum + c.trials, 0)
  if (trials === 0) return null
  const estimate = used.reduce((sum, c) => sum + c.successes, 0) / trials
  const plainSe = Math.sqrt((estimate * (1 - estimate)) / trials)
  const g = used.length
  if (g < 2) return { clusters: g, trials, estimate, se: null, plainSe, designEffect: null, interval: null }
  const squares = used.reduce((sum, c) => sum + (c.successes - c.trials * estimate) ** 2, 0)
  const se = Math.sqrt((g / (g - 1)) * squares / (trials * trials))
  return {
    clusters: g,
    trials,
    estimate,
    se,
    plainSe,
    designEffect: plainSe === 0 ? null : se / plainSe,
    interval: { low: Math.max(0, estimate - z * se), high: Math.min(1, estimate + z * se) }
  }
}

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): a seeded stream of numbers in [0, 1), so a bootstrap
 * gives the same interval every time it is run with its seed. Not for anything secret.
 */
export const mulberry32 = (seed: number): () => number => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One video of a paired comparison: its shared questions and how many each run got right. */
export interface PairedCluster {
  readonly questions: number
  readonly correctA: number
  readonly correctB: number
}

export interface BootstrapOptions {
  readonly resamples: number
  readonly seed: number
}

/** `--bootstrap` and `--seed` of `vtree report --compare`. */
export const defaultBootstrap: BootstrapOptions = { resamples: 2000, seed: 1 }

/** A paired bootstrap of B − A, stated with what it took to reproduce it. */
export interface PairedBootstrap {
  readonly clusters: number
  /** B − A accuracy over the questions as observed (0–1). */
  readonly difference: number
  /** The 2.5 % and 97.5 % percentiles of the resampled differences. */
  readonly interval: Interval
  /** Two-sided: twice the smaller share of resamples at or beyond zero on either side, (k+1)/(B+1), at most 1. */
  readonly p: number
  readonly resamples: number
  readonly seed: number
}

/**
 * The paired bootstrap over videos: draw G videos with replacement (each with all its questions, both
 * runs' answers kept together), recompute B − A, repeat `resamples` times; the percentile interval and a
 * two-sided p say whether the difference survives the correlation of a video's questions. Null under two
 * videos: every resample of one video is that video, which would print a zero-width interval.
 */
export const pairedBootstrap = (
  clusters: ReadonlyArray<PairedCluster>,
  options: BootstrapOptions
): PairedBootstrap | null => {
  const used = clusters.filter((c) => c.questions > 0)
  const g = used.length
  if (g < 2) return null
  const total = (pick: (c: PairedCluster) => number) => used.reduce((sum, c) => sum + pick(c), 0)
  const difference = (total((c) => c.correctB) - total((c) => c.correctA)) / total((c) => c.questions)
  const next = mulberry32(options.seed)
  const resamples = Math.max(1, Math.floor(options.resamples))
  const differences = new Float64Array(resamples)
  let atOrBelow = 0
  let atOrAbove = 0
  for (let r = 0; r < resamples; r++) {
    let questions = 0
    let gain = 0
    for (let i = 0; i < g; i++) {
      const c = used[Math.floor(next() * g)]!
      questions += c.questions
      gain += c.correctB - c.correctA
    }
    const d = gain / questions
    differences[r] = d
    if (d <= 0) atOrBelow += 1
    if (d >= 0) atOrAbove += 1
  }
  differences.sort()
  const at = (q: number) => differences[Math.max(0, Math.ceil(q * resamples) - 1)]!
  return {
    clusters: g,
    difference,
    interval: { low: at(0.025), high: at(0.975) },
    p: Math.min(1, (2 * (Math.min(atOrBelow, atOrAbove) + 1)) / (resamples + 1)),
    resamples,
    seed: options.seed
  }
}
