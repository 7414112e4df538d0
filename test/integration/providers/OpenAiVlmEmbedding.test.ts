import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import jpeg from "jpeg-js"
import * as OpenAiEmbedding from "../../../src/layers/openai/OpenAiEmbedding.js"
import * as OpenAiVlm from "../../../src/layers/openai/OpenAiVlm.js"
import { EmbeddingProvider } from "../../../src/services/EmbeddingProvider.js"
import { VLMProvider } from "../../../src/services/VLMProvider.js"
import { deterministicVector } from "../../support/openai-sim/index.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { embeddingConfig, vlmConfig, withSim } from "./support.js"

const jpegBytes = (): Uint8Array => {
  const width = 4
  const height = 4
  return new Uint8Array(jpeg.encode({ data: Buffer.alloc(width * height * 4, 200), width, height }, 80).data)
}
const pngBytes = () => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82])
const webpBytes = () => new Uint8Array([...Buffer.from("RIFF"), 4, 0, 0, 0, ...Buffer.from("WEBPVP8 ")])

const writeFrames = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const dir = yield* scopedTempDir("vlm-embedding")
  const files = {
    jpg: `${dir}/a.jpg`,
    png: `${dir}/b.jpg`,
    webp: `${dir}/c.webp`,
    text: `${dir}/notes.jpg`,
    big: `${dir}/big.jpg`
  }
  yield* fs.writeFile(files.jpg, jpegBytes())
  yield* fs.writeFile(files.png, pngBytes())
  yield* fs.writeFile(files.webp, webpBytes())
  yield* fs.writeFile(files.text, new TextEncoder().encode("not an image"))
  const big = new Uint8Array(4096)
  big.set(jpegBytes().subarray(0, 3))
  yield* fs.writeFile(files.big, big)
  return { dir, files }
})

describe("OpenAiVlm against openai-sim", () => {
  it.scoped("sends the system text and each image as a data URL with its sniffed MIME type", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "vision-model": [{ content: "a grey square" }] } })
      const { files } = yield* writeFrames
      const reply = yield* Effect.flatMap(
        VLMProvider,
        (vlm) =>
          vlm.chatWithImages({
            system: "describe",
            text: "what is shown?",
            images: [files.jpg, files.png, files.webp],
            maxTokens: 99
          })
      ).pipe(
        Effect.provide(OpenAiVlm.layer(vlmConfig(sim.url)))
      )
      assert.strictEqual(reply.content, "a grey square")
      const body = sim.requests[0]!.body as {
        messages: Array<{ role: string; content: unknown }>
        max_tokens: number
        enable_thinking: boolean
      }
      assert.deepStrictEqual(body.messages[0], { role: "system", content: "describe" })
      const parts = body.messages[1]!.content as Array<{ type: string; text?: string; image_url?: { url: string } }>
      assert.deepStrictEqual(parts[0], { type: "text", text: "what is shown?" })
      const urls = parts.slice(1).map((part) => part.image_url!.url)
      assert.strictEqual(urls.length, 3)
      assert.isTrue(urls[0]!.startsWith("data:image/jpeg;base64,"))
      assert.isTrue(urls[1]!.startsWith("data:image/png;base64,"), "a PNG named .jpg is still sent as PNG")
      assert.isTrue(urls[2]!.startsWith("data:image/webp;base64,"))
      assert.deepStrictEqual(
        new Uint8Array(Buffer.from(urls[0]!.split(",")[1]!, "base64")),
        jpegBytes()
      )
      assert.strictEqual(body.max_tokens, 99)
      assert.strictEqual(body.enable_thinking, false)
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.scoped("a missing, oversized or non-image file fails with BadRequest naming the path, before any request", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ chat: { "vision-model": () => ({ content: "unused" }) } })
      const { dir, files } = yield* writeFrames
      const attempt = (path: string) =>
        Effect.flip(
          Effect.flatMap(
            VLMProvider,
            (vlm) => vlm.chatWithImages({ system: "s", text: "t", images: [files.jpg, path] })
          ).pipe(
            Effect.provide(OpenAiVlm.layer(vlmConfig(sim.url, 1024)))
          )
        )
      const missing = yield* attempt(`${dir}/nope.jpg`)
      assert.strictEqual(missing.reason, "BadRequest")
      assert.include(missing.message, `${dir}/nope.jpg`)
      assert.include(missing.message, "not found")
      const notImage = yield* attempt(files.text)
      assert.include(notImage.message, files.text)
      const big = yield* attempt(files.big)
      assert.include(big.message, "VTREE_VLM_MAX_IMAGE_BYTES")
      assert.strictEqual(sim.requests.length, 0)
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})

describe("OpenAiEmbedding against openai-sim", () => {
  it.scoped("batches by 64, keeps order, returns Float32Array and learns the dimensions", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ dimensions: 12 })
      const texts = Array.from({ length: 150 }, (_, i) => `chunk number ${i}`)
      const { vectors, dimensions, model } = yield* Effect.gen(function*() {
        const embedder = yield* EmbeddingProvider
        assert.strictEqual(embedder.dimensions, undefined)
        const vectors = yield* embedder.embed(texts)
        return { vectors, dimensions: embedder.dimensions, model: embedder.model }
      }).pipe(Effect.provide(OpenAiEmbedding.layer(embeddingConfig(sim.url))))
      assert.strictEqual(model, "embed-model")
      assert.strictEqual(dimensions, 12)
      assert.strictEqual(vectors.length, 150)
      assert.isTrue(vectors.every((vector) => vector instanceof Float32Array))
      assert.isTrue(vectors.every((vector) => vector.length === 12))
      assert.deepStrictEqual(
        Array.from(vectors[149]!),
        Array.from(Float32Array.from(deterministicVector("chunk number 149", 12)))
      )
      assert.deepStrictEqual(
        sim.requests.map((request) => (request.body["input"] as Array<string>).length).sort((a, b) => b - a),
        [64, 64, 22]
      )
      assert.isTrue(sim.requests.every((request) => request.body["encoding_format"] === "float"))
    }))

  it.scoped("replies out of index order are put back in order", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({
        embeddings: { "embed-model": [{ vectors: [[1, 1], [2, 2]], reversed: true }] }
      })
      const vectors = yield* Effect.flatMap(EmbeddingProvider, (embedder) => embedder.embed(["a", "b"])).pipe(
        Effect.provide(OpenAiEmbedding.layer(embeddingConfig(sim.url)))
      )
      assert.deepStrictEqual(vectors.map((vector) => Array.from(vector)), [[1, 1], [2, 2]])
    }))

  it.scoped("a dimension mismatch → BadResponse", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ dimensions: 8 })
      const configured = yield* Effect.flip(
        Effect.flatMap(EmbeddingProvider, (embedder) => embedder.embed(["x"])).pipe(
          Effect.provide(OpenAiEmbedding.layer(embeddingConfig(sim.url, 16)))
        )
      )
      assert.strictEqual(configured.reason, "BadResponse")
      assert.include(configured.message, "returned 8 dimensions, expected 16")
      const ragged = yield* withSim({ embeddings: { "embed-model": [{ vectors: [[1, 2, 3], [1, 2]] }] } })
      const inconsistent = yield* Effect.flip(
        Effect.flatMap(EmbeddingProvider, (embedder) => embedder.embed(["x", "y"])).pipe(
          Effect.provide(OpenAiEmbedding.layer(embeddingConfig(ragged.url)))
        )
      )
      assert.strictEqual(inconsistent.reason, "BadResponse")
      assert.include(inconsistent.message, "returned 2 dimensions, expected 3")
    }))

  it.scoped("a short reply (fewer vectors than inputs) → BadResponse", () =>
    Effect.gen(function*() {
      const sim = yield* withSim({ embeddings: { "embed-model": [{ vectors: [[1, 2]] }] } })
      const error = yield* Effect.flip(
        Effect.flatMap(EmbeddingProvider, (embedder) => embedder.embed(["x", "y"])).pipe(
          Effect.provide(OpenAiEmbedding.layer(embeddingConfig(sim.url)))
        )
      )
      assert.strictEqual(error.reason, "BadResponse")
      assert.include(error.message, "expected 2 embeddings, got 1")
    }))
})
