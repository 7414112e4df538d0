export const chunkSize = 4000
export const chunkOverlap = 800

/**
 * Fixed-size windows that overlap, so a phrase cut by one boundary is whole in the next window.
 * A window never starts or ends inside a surrogate pair.
 */
export const chunkText = (text: string, size = chunkSize, overlap = chunkOverlap): ReadonlyArray<string> => {
  if (text.length <= size) return [text]
  const step = size - overlap
  const chunks: Array<string> = []
  let start = 0
  while (true) {
    let end = Math.min(start + size, text.length)
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end -= 1
    chunks.push(text.slice(start, end))
    if (end >= text.length) return chunks
    start += step
    if (isLowSurrogate(text.charCodeAt(start))) start -= 1
  }
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff
