// Open-ended questions in the prompts (issue 41, item 2): both packs say how to answer one, in both
// protocols, and a question without options shows the pack's note where its options would be.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { labelKeys } from "../../../src/programs/prompts/PromptManager.js"
import {
  defaultOpenQuestion,
  loadPromptManager,
  packagedPromptsDir,
  parseLabels
} from "../../../src/programs/prompts/PromptPack.js"

const packs = [
  { dir: packagedPromptsDir("en"), words: "answer in words", openNote: "open question" },
  { dir: packagedPromptsDir("zh"), words: "用文字作答", openNote: "开放题" }
] as const

const prompt = { question: "Why does she water the plants?", rootIds: ["v_L1_000"], benchmark: "custom" }

describe("open-ended questions in the packaged prompts", () => {
  it.effect("the user message shows the pack's open-question note where the options would be", () =>
    Effect.gen(function*() {
      for (const { dir, openNote } of packs) {
        const pm = yield* loadPromptManager(dir)
        const open = pm.userPrompt({ ...prompt, options: [] })
        assert.include(open, pm.labels.openQuestion, dir)
        assert.include(pm.labels.openQuestion, openNote, dir)
        const closed = pm.userPrompt({ ...prompt, options: ["A. rain", "B. dry soil"] })
        assert.notInclude(closed, pm.labels.openQuestion, dir)
        assert.include(closed, "A. rain\nB. dry soil", dir)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("the system prompt, the submit_answer tool and both final-answer notes say an open answer is words", () =>
    Effect.gen(function*() {
      for (const { dir, words } of packs) {
        const pm = yield* loadPromptManager(dir)
        const system = pm.systemPrompt({ skillMode: "none" })
        assert.include(system, words, dir)
        assert.match(system, /### submit_answer\n[^#]*(open question|开放题)/, dir)
        // json protocol, and the tools protocol's note
        assert.include(pm.labels.finalAnswerMessage, words.replace("answer in words", "your answer in words"), dir)
        assert.include(pm.labels.finalAnswerCallMessage, words.replace("answer in words", "your answer in words"), dir)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it("a pack written before open questions loads, the note in English by default", () => {
    const labels = Object.fromEntries(labelKeys.filter((k) => k !== "openQuestion").map((k) => [k, `x ${k}`]))
    const parsed = parseLabels(JSON.stringify({ ...labels, unknownToolMessage: "{{tool}} {{tools}}" }))
    assert.strictEqual(Either.getOrThrow(parsed).openQuestion, defaultOpenQuestion)
  })
})
