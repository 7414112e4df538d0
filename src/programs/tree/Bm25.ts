/**
 * A small Okapi BM25 index over text chunks. Latin-script words are single tokens; runs of CJK
 * characters, which carry no spaces, become overlapping character bigrams.
 */

const wordRun = /[\p{L}\p{N}\p{M}]+/gu
const cjkChar = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const cjkSplit = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+)/u

const pushCjk = (run: string, out: Array<string>) => {
  const chars = Array.from(run)
  if (chars.length === 1) {
    out.push(chars[0]!)
    return
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!)
}

export const tokenize = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(wordRun)) {
    const word = match[0]
    if (!cjkChar.test(word)) {
      out.push(word)
      continue
    }
    // split with a capture group alternates non-CJK and CJK pieces, CJK at odd positions.
    word.split(cjkSplit).forEach((piece, i) => {
      if (piece === "") return
      if (i % 2 === 1) pushCjk(piece, out)
      else out.push(piece)
    })
  }
  return out
}

export interface Bm25Index {
  readonly documentCount: number
  readonly terms: ReadonlyMap<string, number>
  /** Per term: the documents holding it and how often. */
  readonly postingDocs: ReadonlyArray<Int32Array>
  readonly postingFreqs: ReadonlyArray<Float32Array>
  /** k1 · (1 − b + b · len / avgLen), precomputed per document. */
  readonly lengthNorm: Float32Array
}

const k1 = 1.2
const b = 0.75

export const buildBm25 = (documents: ReadonlyArray<string>): Bm25Index => {
  const terms = new Map<string, number>()
  const docsByTerm: Array<Array<number>> = []
  const freqsByTerm: Array<Array<number>> = []
  // The last document each term was seen in: repeated tokens bump the last posting's frequency,
  // with no per-document map.
  const lastDoc: Array<number> = []
  const lengths = new Float32Array(documents.length)
  documents.forEach((document, doc) => {
    const tokens = tokenize(document)
    lengths[doc] = tokens.length
    for (const token of tokens) {
      let id = terms.get(token)
      if (id === undefined) {
        id = docsByTerm.length
        terms.set(token, id)
        docsByTerm.push([])
        freqsByTerm.push([])
        lastDoc.push(-1)
      }
      const freqs = freqsByTerm[id]!
      if (lastDoc[id] === doc) {
        freqs[freqs.length - 1] += 1
      } else {
        lastDoc[id] = doc
        docsByTerm[id]!.push(doc)
        freqs.push(1)
      }
    }
  })
  let total = 0
  for (const length of lengths) total += length
  const averageLength = documents.length === 0 ? 1 : Math.max(total / documents.length, 1)
  const lengthNorm = new Float32Array(documents.length)
  for (let doc = 0; doc < documents.length; doc++) lengthNorm[doc] = k1 * (1 - b + (b * lengths[doc]) / averageLength)
  return {
    documentCount: documents.length,
    terms,
    postingDocs: docsByTerm.map((docs) => Int32Array.from(docs)),
    postingFreqs: freqsByTerm.map((freqs) => Float32Array.from(freqs)),
    lengthNorm
  }
}

/** BM25 score of every document for the query; 0 where no query term occurs. */
export const scoreBm25 = (index: Bm25Index, query: string): Float64Array => {
  const scores = new Float64Array(index.documentCount)
  const n = index.documentCount
  for (const token of new Set(tokenize(query))) {
    const id = index.terms.get(token)
    if (id === undefined) continue
    const docs = index.postingDocs[id]!
    const freqs = index.postingFreqs[id]!
    const idf = Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5))
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!
      const tf = freqs[i]!
      scores[doc] += (idf * tf * (k1 + 1)) / (tf + index.lengthNorm[doc]!)
    }
  }
  return scores
}
