// The one checkpointed call the builder's event and scene calls and the importer's card calls share:
// a saved checkpoint answers without asking; otherwise ask (twice at most), save, and say it was new.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { Data, Effect, Either, Option, Ref } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import {
  checkpointedCall,
  type CheckpointReply,
  readSceneCheckpoint,
  type SceneCheckpoint,
  writeCheckpoint
} from "../../../src/programs/builder/Checkpoint.js"
import { scopedTempDir } from "../../support/TempDir.js"

class Failed extends Data.TaggedError("Failed")<{ readonly reason: string }> {}

const reply = (content: string): CheckpointReply => ({
  content,
  model: "tool-1",
  usage: { promptTokens: 10, completionTokens: 5 }
})

const decode = (raw: string): Either.Either<Record<string, unknown>, string> =>
  raw.startsWith("{") ? Either.right(JSON.parse(raw) as Record<string, unknown>) : Either.left("not JSON")

/** A scene call over a scripted provider: the texts it was asked, and what the call returned. */
const sceneCall = (treeDir: string, key: string, replies: ReadonlyArray<Either.Either<string, ProviderError>>) =>
  Effect.gen(function*() {
    const asked = yield* Ref.make<ReadonlyArray<string>>([])
    const script = yield* Ref.make(replies)
    const result = yield* checkpointedCall({
      treeDir,
      key,
      read: readSceneCheckpoint,
      text: "Scene 1: 0.0 s – 60.0 s",
      ask: (text) =>
        Effect.gen(function*() {
          yield* Ref.update(asked, (texts) => [...texts, text])
          const [next, ...rest] = yield* Ref.get(script)
          yield* Ref.set(script, rest)
          return yield* Either.match(next!, {
            onLeft: Effect.fail,
            onRight: (content) => Effect.succeed(reply(content))
          })
        }),
      decode,
      degrade: (raw) => ({ scene_summary: raw, degraded: true }),
      checkpoint: (value, fields): SceneCheckpoint => ({ kind: "scene", ...fields, scene: value }),
      providerFailed: (error) => new Failed({ reason: error.reason }),
      save: (checkpoint) =>
        writeCheckpoint(treeDir, checkpoint).pipe(Effect.mapError(() => new Failed({ reason: "Unwritable" })))
    }).pipe(Effect.either)
    return { asked: yield* Ref.get(asked), result }
  })

const withTreeDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.flatMap(scopedTempDir("checkpointed"), use))

describe("checkpointedCall", () => {
  layer(NodeContext.layer)((it) => {
    it.effect("asks once, saves the card, and a second run answers from the checkpoint without asking", () =>
      withTreeDir((dir) =>
        Effect.gen(function*() {
          const first = yield* sceneCall(dir, "k1", [Either.right("{\"scene_summary\":\"a kitchen\"}")])
          assert.strictEqual(first.asked.length, 1)
          assert.isTrue(Either.isRight(first.result))
          const made = Either.getOrThrow(first.result)
          assert.isFalse(made.reused)
          assert.deepStrictEqual(made.checkpoint.scene, { scene_summary: "a kitchen" })
          assert.deepStrictEqual(made.checkpoint.usage, { calls: 1, promptTokens: 10, completionTokens: 5 })
          assert.strictEqual(made.checkpoint.model, "tool-1")
          assert.deepStrictEqual(yield* readSceneCheckpoint(dir, "k1"), Option.some(made.checkpoint))

          const again = yield* sceneCall(dir, "k1", [])
          assert.deepStrictEqual(again.asked, [])
          assert.deepStrictEqual(again.result, Either.right({ checkpoint: made.checkpoint, reused: true }))
        })
      ))

    it.effect("an unusable reply is asked again with the problem; two make a degraded card, saved", () =>
      withTreeDir((dir) =>
        Effect.gen(function*() {
          const { asked, result } = yield* sceneCall(dir, "k2", [Either.right("prose"), Either.right("more prose")])
          assert.strictEqual(asked.length, 2)
          assert.include(asked[1]!, "Your previous reply could not be used: not JSON")
          const made = Either.getOrThrow(result)
          assert.isTrue(made.checkpoint.degraded)
          assert.deepStrictEqual(made.checkpoint.scene, { scene_summary: "more prose", degraded: true })
          assert.deepStrictEqual(made.checkpoint.usage, { calls: 2, promptTokens: 20, completionTokens: 10 })
          assert.isTrue(Option.isSome(yield* readSceneCheckpoint(dir, "k2")))
        })
      ))

    it.effect("a provider failure is the caller's error, and nothing is saved", () =>
      withTreeDir((dir) =>
        Effect.gen(function*() {
          const down = new ProviderError({ provider: "llm", reason: "Server", status: 503, message: "down" })
          const { result } = yield* sceneCall(dir, "k3", [Either.left(down)])
          assert.isTrue(Either.isLeft(result))
          const failure = Either.flip(result).pipe(Either.getOrThrow)
          assert.deepStrictEqual([failure._tag, failure.reason], ["Failed", "Server"])
          assert.isTrue(Option.isNone(yield* readSceneCheckpoint(dir, "k3")))
        })
      ))
  })
})
