import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import {
  type CheckpointInputs,
  checkpointKey,
  type EventCheckpoint,
  readEventCheckpoint,
  readSceneCheckpoint,
  writeCheckpoint
} from "../../../src/programs/builder/Checkpoint.js"
import { scopedTempDir } from "../../support/TempDir.js"

const base: CheckpointInputs = {
  kind: "event",
  model: "vlm-a",
  prompt: "describe",
  text: "Event 1 of 2: 0.0 s – 20.0 s",
  images: ["aa", "bb"],
  parameters: { maxTokens: 4096, temperature: 0 }
}

describe("checkpoint keys", () => {
  layer(NodeContext.layer)((it) => {
    it("change with every input the call depends on, and only with those", () => {
      const key = checkpointKey(base)
      assert.match(key, /^[0-9a-f]{64}$/)
      assert.strictEqual(checkpointKey({ ...base, parameters: { temperature: 0, maxTokens: 4096 } }), key)
      const variants: ReadonlyArray<Partial<CheckpointInputs>> = [
        { kind: "scene" },
        { model: "vlm-b" },
        { prompt: "describe!" },
        { text: "Event 1 of 2: 0.0 s – 21.0 s" },
        { images: ["aa", "bc"] },
        { images: ["aa"] },
        { parameters: { maxTokens: 2048, temperature: 0 } }
      ]
      const keys = new Set(variants.map((variant) => checkpointKey({ ...base, ...variant })))
      assert.strictEqual(keys.size, variants.length)
      assert.isFalse(keys.has(key))
      // Length prefixes: moving a character from one input to the next is another key.
      assert.notStrictEqual(
        checkpointKey({ ...base, prompt: "ab", text: "c" }),
        checkpointKey({ ...base, prompt: "a", text: "bc" })
      )
    })

    it.scoped("round-trip on disk; a corrupt, foreign or missing file reads as not done", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const dir = yield* scopedTempDir("checkpoint")
        const key = checkpointKey(base)
        const checkpoint: EventCheckpoint = {
          kind: "event",
          key,
          createdAt: "2026-01-01T00:00:00.000Z",
          model: "vlm-a",
          degraded: false,
          usage: { calls: 1, promptTokens: 10, completionTokens: 5 },
          event: { event_description: "x" },
          frames: [{ frame_summary: "a" }]
        }
        assert.isTrue(Option.isNone(yield* readEventCheckpoint(dir, key)))
        yield* writeCheckpoint(dir, checkpoint)
        assert.deepStrictEqual(yield* readEventCheckpoint(dir, key), Option.some(checkpoint))
        // No temporary files left behind.
        assert.deepStrictEqual(yield* fs.readDirectory(path.join(dir, ".vtree", "checkpoints")), [`event-${key}.json`])
        assert.isTrue(Option.isNone(yield* readSceneCheckpoint(dir, key)))
        const file = path.join(dir, ".vtree", "checkpoints", `event-${key}.json`)
        yield* fs.writeFileString(file, "{\"kind\": \"event\", \"key\"")
        assert.isTrue(Option.isNone(yield* readEventCheckpoint(dir, key)))
        yield* fs.writeFileString(file, JSON.stringify({ ...checkpoint, key: "other" }))
        assert.isTrue(Option.isNone(yield* readEventCheckpoint(dir, key)))
      }))
  })
})
