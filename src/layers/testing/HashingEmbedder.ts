import { Clock, Effect, Layer } from "effect"
import { recordCall } from "../../services/CallLog.js"
import { EmbeddingProvider } from "../../services/EmbeddingProvider.js"

/**
 * A deterministic, offline EmbeddingProvider: feature hashing of word tokens (and of single CJK
 * characters) into a fixed number of signed dimensions, L2-normalized. Texts sharing words get close
 * vectors, which is all retrieval tests need; no model, no network.
 */

export interface HashingEmbedderOptions {
  readonly dimensions?: number
  readonly model?: string
}

const tokenPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}]+/gu

// FNV-1a, 32 bit: fast, well spread, and stable across runs and machines.
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

export const hashingEmbedding = (text: string, dimensions: number): Float32Array => {
  const vector = new Float32Array(dimensions)
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(tokenPattern)) {
    const hash = fnv1a(match[0])
    // The top bit picks the sign, so unrelated tokens sharing a bucket tend to cancel, not pile up.
    vector[hash % dimensions] += hash & 0x80000000 ? -1 : 1
  }
  let sum = 0
  for (const value of vector) sum += value * value
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum)
    for (let i = 0; i < dimensions; i++) vector[i] *= scale
  }
  return vector
}

export const makeHashingEmbedder = (options: HashingEmbedderOptions = {}): EmbeddingProvider["Type"] => {
  const dimensions = options.dimensions ?? 256
  const model = options.model ?? `hashing-${dimensions}`
  return EmbeddingProvider.of({
    model,
    dimensions,
    embed: (texts) =>
      Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        const vectors = texts.map((text) => hashingEmbedding(text, dimensions))
        const finishedAt = yield* Clock.currentTimeMillis
        yield* recordCall({
          role: "embed",
          model,
          startedAt,
          durationMs: finishedAt - startedAt,
          // A rough whitespace count stands in for tokens; the fake has no tokenizer to be exact with.
          promptTokens: texts.reduce((total, text) => total + text.split(/\s+/).filter(Boolean).length, 0),
          completionTokens: 0,
          status: "ok",
          errorReason: null
        })
        return vectors
      })
  })
}

export const HashingEmbedder = {
  layer: (options: HashingEmbedderOptions = {}): Layer.Layer<EmbeddingProvider> =>
    Layer.sync(EmbeddingProvider, () => makeHashingEmbedder(options))
}
