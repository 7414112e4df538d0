import { Option, Schema } from "effect"
import { createHash } from "node:crypto"

/**
 * Chunk vectors in one contiguous, row-major Float32Array, each row L2-normalized, so a query is a
 * single linear pass of dot products.
 */
export interface EmbeddingMatrix {
  readonly count: number
  readonly dimensions: number
  readonly data: Float32Array
}

/** Normalizes each row in place; a zero row stays zero (it then scores 0 against everything). */
export const normalizeRows = (data: Float32Array, dimensions: number): void => {
  for (let offset = 0; offset < data.length; offset += dimensions) {
    let sum = 0
    for (let j = 0; j < dimensions; j++) sum += data[offset + j]! * data[offset + j]!
    if (sum === 0) continue
    const scale = 1 / Math.sqrt(sum)
    for (let j = 0; j < dimensions; j++) data[offset + j] *= scale
  }
}

/** Packs vectors (all of one length) into a normalized matrix; undefined when lengths differ. */
export const packVectors = (vectors: ReadonlyArray<Float32Array>): EmbeddingMatrix | undefined => {
  const dimensions = vectors[0]?.length ?? 0
  const data = new Float32Array(vectors.length * dimensions)
  for (let i = 0; i < vectors.length; i++) {
    const vector = vectors[i]!
    if (vector.length !== dimensions) return undefined
    data.set(vector, i * dimensions)
  }
  normalizeRows(data, dimensions)
  return { count: vectors.length, dimensions, data }
}

/** Cosine similarity of a normalized query with every row, written into `out`. */
export const dotAll = (matrix: EmbeddingMatrix, query: Float32Array, out: Float32Array): Float32Array => {
  const { data, dimensions } = matrix
  let offset = 0
  const unrolled = dimensions - (dimensions % 4)
  for (let row = 0; row < matrix.count; row++) {
    // Four independent sums: the adds do not wait on each other, so the loop runs at memory speed.
    let s0 = 0
    let s1 = 0
    let s2 = 0
    let s3 = 0
    let j = 0
    for (; j < unrolled; j += 4) {
      s0 += data[offset + j]! * query[j]!
      s1 += data[offset + j + 1]! * query[j + 1]!
      s2 += data[offset + j + 2]! * query[j + 2]!
      s3 += data[offset + j + 3]! * query[j + 3]!
    }
    for (; j < dimensions; j++) s0 += data[offset + j]! * query[j]!
    out[row] = s0 + s1 + s2 + s3
    offset += dimensions
  }
  return out
}

/** The cache key for a set of chunk texts: any change of any chunk gives another hash. */
export const hashTexts = (texts: ReadonlyArray<string>): string => {
  const hash = createHash("sha256")
  for (const text of texts) {
    hash.update(String(text.length))
    hash.update(":")
    hash.update(text)
  }
  return hash.digest("hex")
}

/** A file name per model, readable, and distinct even when two model names slug alike. */
export const cacheFileName = (model: string): string => {
  const slug = model.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 60)
  const tag = createHash("sha256").update(model).digest("hex").slice(0, 8)
  return `embeddings-${slug}-${tag}.bin`
}

// Layout: magic (8 bytes) · header length (u32 LE) · JSON header · zero padding to a multiple of 4 ·
// float32 LE rows. The header repeats everything needed to tell a stale or truncated file.
const magic = new TextEncoder().encode("VTREEMB1")

const CacheHeader = Schema.Struct({
  model: Schema.String,
  textHash: Schema.String,
  count: Schema.Number,
  dimensions: Schema.Int.pipe(Schema.positive())
})
type CacheHeader = typeof CacheHeader.Type
// A header that is not this JSON is a stale or foreign file: the caller rebuilds it, so no message.
const decodeHeader = Schema.decodeUnknownOption(Schema.parseJson(CacheHeader))

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

export const encodeCache = (header: CacheHeader, matrix: EmbeddingMatrix): Uint8Array => {
  const json = new TextEncoder().encode(JSON.stringify(header))
  const dataStart = Math.ceil((magic.length + 4 + json.length) / 4) * 4
  const bytes = new Uint8Array(dataStart + matrix.data.byteLength)
  bytes.set(magic, 0)
  new DataView(bytes.buffer).setUint32(magic.length, json.length, true)
  bytes.set(json, magic.length + 4)
  if (littleEndian) {
    bytes.set(new Uint8Array(matrix.data.buffer, matrix.data.byteOffset, matrix.data.byteLength), dataStart)
  } else {
    const view = new DataView(bytes.buffer, dataStart)
    matrix.data.forEach((value, i) => view.setFloat32(i * 4, value, true))
  }
  return bytes
}

/** The cached matrix when the file is intact and matches `expected`; undefined means "rebuild". */
export const decodeCache = (
  bytes: Uint8Array,
  expected: { readonly model: string; readonly textHash: string; readonly count: number }
): EmbeddingMatrix | undefined => {
  if (bytes.length < magic.length + 4) return undefined
  for (let i = 0; i < magic.length; i++) if (bytes[i] !== magic[i]) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const jsonLength = view.getUint32(magic.length, true)
  if (magic.length + 4 + jsonLength > bytes.length) return undefined
  const decoded = decodeHeader(
    new TextDecoder().decode(bytes.subarray(magic.length + 4, magic.length + 4 + jsonLength))
  )
  if (Option.isNone(decoded)) return undefined
  const header = decoded.value
  if (header.model !== expected.model || header.textHash !== expected.textHash || header.count !== expected.count) {
    return undefined
  }
  const dataStart = Math.ceil((magic.length + 4 + jsonLength) / 4) * 4
  const floats = header.count * header.dimensions
  if (bytes.length !== dataStart + floats * 4) return undefined
  const data = new Float32Array(floats)
  if (littleEndian) {
    new Uint8Array(data.buffer).set(bytes.subarray(dataStart))
  } else {
    for (let i = 0; i < floats; i++) data[i] = view.getFloat32(dataStart + i * 4, true)
  }
  for (let i = 0; i < floats; i++) if (!Number.isFinite(data[i]!)) return undefined
  return { count: header.count, dimensions: header.dimensions, data }
}
