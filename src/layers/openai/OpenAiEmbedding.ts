import { Chunk, Effect, Either, Layer, Schema } from "effect"
import { type ConfigurationError } from "../../config/ConfigurationError.js"
import { type EmbeddingConfig, loadEmbeddingConfig } from "../../config/ProviderConfig.js"
import { ProviderError } from "../../domain/ProviderError.js"
import { EmbeddingProvider } from "../../services/EmbeddingProvider.js"
import { makeReplicaSet } from "./EndpointPool.js"
import { decodeReply, makeRoute, sdkRequest, sendReported } from "./OpenAiClient.js"

/** An `/embeddings` reply, as much of it as vtree reads. */
const EmbeddingsReply = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({ embedding: Schema.Array(Schema.Number), index: Schema.optional(Schema.NonNegativeInt) })
      .annotations({ identifier: "Embedding" })
  ),
  usage: Schema.optional(
    Schema.NullOr(
      Schema.Struct({ prompt_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }).annotations({
        identifier: "Usage"
      })
    )
  )
}).annotations({ identifier: "EmbeddingList" })
type EmbeddingsReply = typeof EmbeddingsReply.Type
const decodeEmbeddings = decodeReply(EmbeddingsReply)

interface EmbeddingReply {
  readonly vectors: ReadonlyArray<Float32Array>
  readonly promptTokens: number
}

/** An EmbeddingProvider over OpenAI-compatible `/embeddings`, batched. */
export const make = Effect.fn("OpenAiEmbedding.make")(function*(config: EmbeddingConfig) {
  const { endpoint } = config
  const route = makeRoute(endpoint, config.reliability, yield* makeReplicaSet(config.reliability.concurrency))
  let dimensions = config.dimensions
  const bad = (message: string) =>
    new ProviderError({
      provider: endpoint.provider,
      reason: "BadResponse",
      message: `${endpoint.provider}: ${message}`
    })

  const read = (batch: ReadonlyArray<string>, reply: EmbeddingsReply): Either.Either<EmbeddingReply, ProviderError> => {
    if (reply.data.length !== batch.length) {
      return Either.left(bad(`expected ${batch.length} embeddings, got ${reply.data.length}`))
    }
    const vectors: Array<Float32Array | undefined> = new Array(batch.length)
    for (const [position, { embedding, index }] of reply.data.entries()) {
      const slot = index ?? position
      if (slot >= batch.length || vectors[slot] !== undefined) {
        return Either.left(bad(`embedding ${position} has a bad index`))
      }
      if (dimensions !== undefined && embedding.length !== dimensions) {
        return Either.left(
          bad(
            `model ${endpoint.model} returned ${embedding.length} dimensions, expected ${dimensions} — check VTREE_EMBED_MODEL / VTREE_EMBED_DIMENSIONS`
          )
        )
      }
      dimensions ??= embedding.length
      vectors[slot] = Float32Array.from(embedding)
    }
    return Either.right({ vectors: vectors as Array<Float32Array>, promptTokens: reply.usage?.prompt_tokens ?? 0 })
  }

  const embedBatch = (batch: ReadonlyArray<string>) =>
    sendReported(
      route,
      "embed",
      (client) =>
        sdkRequest(endpoint, (signal) =>
          client.embeddings.create(
            // Floats, not the SDK's default base64: several compatible servers do not implement base64.
            { model: endpoint.model, input: [...batch], encoding_format: "float" },
            { signal }
          )).pipe(
            Effect.flatMap(decodeEmbeddings(endpoint)),
            Effect.flatMap((reply) => read(batch, reply))
          ),
      (reply) => ({ promptTokens: reply.promptTokens, completionTokens: 0 })
    )

  const embed = Effect.fn("OpenAiEmbedding.embed")(function*(texts: ReadonlyArray<string>) {
    if (texts.length === 0) return []
    const batches = Chunk.chunksOf(Chunk.fromIterable(texts), config.batchSize)
    const replies = yield* Effect.forEach(batches, (batch) => embedBatch(Chunk.toReadonlyArray(batch)), {
      concurrency: config.reliability.concurrency
    })
    return replies.flatMap((reply) => reply.vectors)
  })

  return EmbeddingProvider.of({
    model: endpoint.model,
    get dimensions() {
      return dimensions
    },
    embed
  })
})

/** The embedding port over the endpoint `config` names. */
export const layer = (config: EmbeddingConfig): Layer.Layer<EmbeddingProvider> =>
  Layer.effect(EmbeddingProvider, make(config))

/** Reads VTREE_EMBED_*; fails naming the variable to set. Only provide it when embeddings are configured. */
export const layerConfig: Layer.Layer<EmbeddingProvider, ConfigurationError> = Layer.effect(
  EmbeddingProvider,
  Effect.flatMap(loadEmbeddingConfig, make)
)
