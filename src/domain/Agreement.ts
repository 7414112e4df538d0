// How far judges agree: pure functions, no Effect, tested against published worked examples.

/** How often two raters gave one item the same label, over the items both rated. */
export interface PairAgreement {
  readonly agree: number
  /** Items both raters labelled. */
  readonly compared: number
  /** agree / compared; null when nothing was compared. */
  readonly share: number | null
}

/** Agreement of two raters' labels, item by item (undefined or null: that rater gave the item none). */
export const pairAgreement = (
  a: ReadonlyMap<string, string>,
  b: ReadonlyMap<string, string>
): PairAgreement => {
  let agree = 0
  let compared = 0
  for (const [item, label] of a) {
    const other = b.get(item)
    if (other === undefined) continue
    compared += 1
    if (other === label) agree += 1
  }
  return { agree, compared, share: compared === 0 ? null : agree / compared }
}

/**
 * Fleiss' kappa (Fleiss 1971) over a table of `counts[item][category]`: how many raters put each item in
 * each category, every item rated by the same number of raters (at least 2). κ = (P̄ − P̄e) / (1 − P̄e):
 * 1 is full agreement, 0 what chance gives. Null when it is undefined: no items, fewer than two raters,
 * rows of unequal totals, or every rating in one category (P̄e = 1).
 */
export const fleissKappa = (counts: ReadonlyArray<ReadonlyArray<number>>): number | null => {
  if (counts.length === 0) return null
  const raters = counts[0]!.reduce((sum, n) => sum + n, 0)
  if (raters < 2 || counts.some((row) => row.reduce((sum, n) => sum + n, 0) !== raters)) return null
  const categories = Math.max(...counts.map((row) => row.length))
  const items = counts.length
  let observed = 0
  const totals = new Array<number>(categories).fill(0)
  for (const row of counts) {
    let agreeing = 0
    row.forEach((n, j) => {
      agreeing += n * (n - 1)
      totals[j]! += n
    })
    observed += agreeing / (raters * (raters - 1))
  }
  const meanObserved = observed / items
  const expected = totals.reduce((sum, total) => sum + (total / (items * raters)) ** 2, 0)
  return expected >= 1 ? null : (meanObserved - expected) / (1 - expected)
}
