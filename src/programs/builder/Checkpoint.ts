/**
 * Finished model calls of a build, kept under `<tree>/.vtree/checkpoints/` so a rerun after a crash,
 * `kill -9` or Ctrl-C asks no model twice. A checkpoint is named by a hash of everything its call
 * depended on (frame bytes, subtitle text, prompt text, model, parameters): change any of it and the
 * name changes, so only the affected calls run again. Files are written whole or not at all.
 * `checkpointedCall` is the one way a card call is made: the builder's event and scene calls and the
 * importer's card calls all go through it.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Clock, Effect, Either, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import type { ProviderError } from "../../domain/ProviderError.js"
import { retryText } from "./Cards.js"

/** Bumped when the meaning of a checkpoint changes, so old ones stop matching. */
export const checkpointFormat = 1

export interface CheckpointInputs {
  readonly kind: "event" | "scene" | "registry"
  readonly model: string
  /** The system prompt. */
  readonly prompt: string
  /** The user text: times, frame labels, subtitles, or the event cards of a scene. */
  readonly text: string
  /** sha256 of each image sent, in order. */
  readonly images: ReadonlyArray<string>
  /** Request settings that change the reply (token caps, temperature). */
  readonly parameters: Readonly<Record<string, string | number | boolean>>
}

export const sha256 = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex")

/** The checkpoint name of a call: a hash over every input, each length-prefixed so no two inputs alias. */
export const checkpointKey = (inputs: CheckpointInputs): string => {
  const hash = createHash("sha256")
  const part = (value: string) => {
    hash.update(`${Buffer.byteLength(value)}:`)
    hash.update(value)
  }
  part(`vtree-build-checkpoint/${checkpointFormat}`)
  part(inputs.kind)
  part(inputs.model)
  part(inputs.prompt)
  part(inputs.text)
  part(String(inputs.images.length))
  inputs.images.forEach(part)
  const keys = Object.keys(inputs.parameters).sort()
  part(JSON.stringify(keys.map((key) => [key, inputs.parameters[key]])))
  return hash.digest("hex")
}

const Card = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const CheckpointUsage = Schema.Struct({
  calls: Schema.Number,
  promptTokens: Schema.Number,
  completionTokens: Schema.Number
})
export type CheckpointUsage = typeof CheckpointUsage.Type

/** What every finished call records besides its cards. */
const callFields = {
  key: Schema.String,
  createdAt: Schema.String,
  model: Schema.String,
  degraded: Schema.Boolean,
  usage: CheckpointUsage
}

export const EventCheckpoint = Schema.Struct({
  kind: Schema.Literal("event"),
  ...callFields,
  event: Card,
  frames: Schema.Array(Card)
})
export type EventCheckpoint = typeof EventCheckpoint.Type

export const SceneCheckpoint = Schema.Struct({
  kind: Schema.Literal("scene"),
  ...callFields,
  scene: Card
})
export type SceneCheckpoint = typeof SceneCheckpoint.Type

/** The entity registry of one stretch of a video (EntityRegistry.ts), as checked from the reply. */
export const RegistryCheckpoint = Schema.Struct({
  kind: Schema.Literal("registry"),
  ...callFields,
  entities: Schema.Array(Card)
})
export type RegistryCheckpoint = typeof RegistryCheckpoint.Type

type AnyCheckpoint = EventCheckpoint | SceneCheckpoint | RegistryCheckpoint

export const checkpointDir = (path: Path.Path, treeDir: string) => path.join(treeDir, ".vtree", "checkpoints")

const fileOf = (path: Path.Path, treeDir: string, kind: string, key: string) =>
  path.join(checkpointDir(path, treeDir), `${kind}-${key}.json`)

/** Writes `text` to `file` through a temporary file and a rename, uninterruptibly. */
export const writeAtomically = Effect.fn("Checkpoint.writeAtomically")(
  function*(file: string, text: string | Uint8Array) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const temp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`
    yield* Effect.uninterruptible(
      fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
        Effect.zipRight(typeof text === "string" ? fs.writeFileString(temp, text) : fs.writeFile(temp, text)),
        Effect.zipRight(fs.rename(temp, file)),
        Effect.tapError(() => fs.remove(temp).pipe(Effect.ignore))
      )
    )
  }
)

/** The checkpoint of `key`, when present and intact; anything else reads as "not done yet". */
export const readCheckpoint = <A, I>(schema: Schema.Schema<A, I>, kind: "event" | "scene" | "registry") =>
  Effect.fn("Checkpoint.read")(function*(treeDir: string, key: string) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const text = yield* fs.readFileString(fileOf(path, treeDir, kind, key)).pipe(Effect.option)
    if (Option.isNone(text)) return Option.none<A>()
    const decoded = Schema.decodeUnknownEither(Schema.parseJson(schema))(text.value)
    return Either.isRight(decoded) && (decoded.right as { key?: unknown }).key === key
      ? Option.some(decoded.right)
      : Option.none<A>()
  })

export const readEventCheckpoint = readCheckpoint(EventCheckpoint, "event")
export const readSceneCheckpoint = readCheckpoint(SceneCheckpoint, "scene")
export const readRegistryCheckpoint = readCheckpoint(RegistryCheckpoint, "registry")

export const writeCheckpoint = Effect.fn("Checkpoint.write")(function*(
  treeDir: string,
  checkpoint: AnyCheckpoint
) {
  const path = yield* Path.Path
  yield* writeAtomically(fileOf(path, treeDir, checkpoint.kind, checkpoint.key), JSON.stringify(checkpoint))
})

/** What a card call needs of a model's reply (an LLM's or a VLM's `ChatResponse`). */
export interface CheckpointReply {
  readonly content: string
  readonly model: string
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number }
}

export interface CallOutcome<A> {
  readonly value: A
  readonly degraded: boolean
  readonly usage: CheckpointUsage
  readonly model: string
}

/** Asks once, and once more with the decode error; a second unusable reply gives degraded cards. */
export const askTwice = <A>(
  ask: (text: string) => Effect.Effect<CheckpointReply, ProviderError>,
  text: string,
  decode: (raw: string) => Either.Either<A, string>,
  degrade: (raw: string) => A
): Effect.Effect<CallOutcome<A>, ProviderError> =>
  Effect.gen(function*() {
    const first = yield* ask(text)
    const decoded = decode(first.content)
    if (Either.isRight(decoded)) {
      return { value: decoded.right, degraded: false, model: first.model, usage: { calls: 1, ...first.usage } }
    }
    const second = yield* ask(retryText(text, decoded.left))
    const again = decode(second.content)
    const usage = {
      calls: 2,
      promptTokens: first.usage.promptTokens + second.usage.promptTokens,
      completionTokens: first.usage.completionTokens + second.usage.completionTokens
    }
    return Either.isRight(again)
      ? { value: again.right, degraded: false, model: second.model, usage }
      : { value: degrade(second.content), degraded: true, model: second.model, usage }
  })

/** The fields every checkpoint records about its call, handed to the caller to add its cards to. */
export type CallFields = Pick<EventCheckpoint, "key" | "createdAt" | "model" | "degraded" | "usage">

export interface CheckpointedCall<A, C extends AnyCheckpoint, E, E2, R> {
  readonly treeDir: string
  /** `checkpointKey` of everything the call sends. */
  readonly key: string
  /** `readEventCheckpoint` or `readSceneCheckpoint`. */
  readonly read: (
    treeDir: string,
    key: string
  ) => Effect.Effect<Option.Option<C>, never, FileSystem.FileSystem | Path.Path>
  /** The user text; a retry appends the decode problem to it. */
  readonly text: string
  readonly ask: (text: string) => Effect.Effect<CheckpointReply, ProviderError>
  readonly decode: (raw: string) => Either.Either<A, string>
  /** The cards made from the raw text of a second unusable reply. */
  readonly degrade: (raw: string) => A
  /** The checkpoint of a finished call: `fields` plus its kind and cards. */
  readonly checkpoint: (value: A, fields: CallFields) => C
  /** A provider failure (its own retries spent) as the caller's error, naming the call. */
  readonly providerFailed: (error: ProviderError) => E
  /** Writes the checkpoint where the caller's tree folder allows. */
  readonly save: (checkpoint: C) => Effect.Effect<void, E2, R>
}

/**
 * One card call: its checkpoint when one is saved under `key` (`reused`, nothing asked), else the model
 * asked at most twice (`askTwice`) and the result saved at once, before anyone counts it.
 */
export const checkpointedCall = Effect.fn("Checkpoint.call")(function*<
  A,
  C extends AnyCheckpoint,
  E,
  E2,
  R
>(call: CheckpointedCall<A, C, E, E2, R>) {
  const saved = yield* call.read(call.treeDir, call.key)
  if (Option.isSome(saved)) return { checkpoint: saved.value, reused: true }
  const outcome = yield* askTwice(call.ask, call.text, call.decode, call.degrade).pipe(
    Effect.mapError(call.providerFailed)
  )
  const checkpoint = call.checkpoint(outcome.value, {
    key: call.key,
    createdAt: new Date(yield* Clock.currentTimeMillis).toISOString(),
    model: outcome.model,
    degraded: outcome.degraded,
    usage: outcome.usage
  })
  yield* call.save(checkpoint)
  return { checkpoint, reused: false }
})
