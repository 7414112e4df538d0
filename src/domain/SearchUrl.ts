/** Query parameters that only track the click; two URLs differing in them are the same page. */
const isTrackingParam = (name: string): boolean => {
  const lower = name.toLowerCase()
  return lower.startsWith("utm_") || lower === "fbclid" || lower === "gclid"
}

/**
 * The canonical form used to recognise one page reached by several URLs: lower-case scheme and host
 * (WHATWG URL does both and drops the default port), no fragment, no tracking parameters, and the
 * remaining parameters in a stable order. Returns null for text that is not an absolute URL.
 */
export const canonicalizeUrl = (input: string): string | null => {
  let url: URL
  try {
    url = new URL(input.trim())
  } catch {
    return null
  }
  url.hash = ""
  const kept = [...url.searchParams.entries()].filter(([name]) => !isTrackingParam(name))
  // Sorting by name only keeps repeated parameters (a=2&a=1) in their meaningful order.
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  url.search = ""
  for (const [name, value] of kept) url.searchParams.append(name, value)
  return url.toString()
}

/** Keeps the first item for each canonical URL, in order; items whose URL does not parse are kept. */
export const dedupeByCanonicalUrl = <A>(items: ReadonlyArray<A>, urlOf: (item: A) => string): Array<A> => {
  const seen = new Set<string>()
  const kept: Array<A> = []
  for (const item of items) {
    const key = canonicalizeUrl(urlOf(item))
    if (key !== null) {
      if (seen.has(key)) continue
      seen.add(key)
    }
    kept.push(item)
  }
  return kept
}
