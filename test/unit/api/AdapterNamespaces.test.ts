import { assert, describe, it } from "@effect/vitest"
import * as Library from "../../../src/index.js"

// The values each adapter namespace offers (types vanish at run time): how to build the adapter, nothing of how
// it works inside, so an internal helper can change without breaking a user.
const publicValues: Record<string, ReadonlyArray<string>> = {
  Ffmpeg: ["layer", "layerConfig", "make"],
  MemoryCallBuffer: ["layer", "make"],
  MonkeyOcr: ["layer", "layerConfig", "make"],
  OpenAiEmbedding: ["layer", "layerConfig", "make"],
  OpenAiLlm: ["layer", "layerConfig", "make"],
  OpenAiSpeech: ["layer", "make"],
  OpenAiVlm: ["layer", "layerConfig", "make"],
  PgRunStore: ["layer"],
  Reliability: ["reported", "retrySchedule", "withPolicy"],
  SqliteRunStore: ["layer"],
  TesseractOcr: ["layer", "make"]
}

describe("the package's adapter namespaces", () => {
  for (const [name, values] of Object.entries(publicValues)) {
    it(`${name} offers ${values.join(", ")} and none of its module's helpers`, () => {
      const namespace: object = Library[name as keyof typeof Library]
      assert.deepStrictEqual(Object.keys(namespace).sort(), [...values])
    })
  }
})
