/**
 * Finished model calls of a build, kept under `<tree>/.vtree/checkpoints/` so a rerun after a crash,
 * `kill -9` or Ctrl-C asks no model twice. A checkpoint is named by a hash of everything its call
 * depended on (frame bytes, subtitle text, prompt text, model, parameters): change any of it and the
 * name changes, so only the affected calls run again. Files are written whole or not at all.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Option, Schema } from "effect"
import { createHash } from "node:crypto"

/** Bumped when the meaning of a checkpoint changes, so old ones stop matching. */
export const checkpointFormat = 1

export interface CheckpointInputs {
  readonly kind: "event" | "scene"
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
export const readCheckpoint = <A, I>(schema: Schema.Schema<A, I>, kind: "event" | "scene") =>
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

export const writeCheckpoint = Effect.fn("Checkpoint.write")(function*(
  treeDir: string,
  checkpoint: EventCheckpoint | SceneCheckpoint
) {
  const path = yield* Path.Path
  yield* writeAtomically(fileOf(path, treeDir, checkpoint.kind, checkpoint.key), JSON.stringify(checkpoint))
})
