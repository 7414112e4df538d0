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
