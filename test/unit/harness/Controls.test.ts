import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { runControl, StoredRunConfigJson } from "../../../src/domain/RunConfig.js"
import { blindPrediction } from "../../../src/programs/harness/BlindAnswer.js"
import { chanceLetter, pairByDuration, type VideoLength } from "../../../src/programs/harness/Controls.js"
import { loadBlindPrompt, renderBlindPrompt } from "../../../src/programs/prompts/BlindPrompt.js"
import { loadPromptManager, packagedPromptsDir } from "../../../src/programs/prompts/PromptPack.js"
import { emptyUsage } from "../../../src/services/CallLog.js"

const videos = (seconds: ReadonlyArray<number>): ReadonlyArray<VideoLength> =>
  seconds.map((s, i) => ({ videoId: `v${i}`, seconds: s }))

describe("pairByDuration (the shuffled control's pairing)", () => {
  it("pairs each video with its nearest neighbour in duration, never with itself", () => {
    const pairs = pairByDuration(
      [
        { videoId: "a", seconds: 600 },
        { videoId: "c", seconds: 1200 },
        { videoId: "b", seconds: 610 },
        { videoId: "d", seconds: 1190 }
      ],
      1
    )
    assert.deepStrictEqual(pairs, { a: "b", b: "a", c: "d", d: "c" })
  })

  it("is a derangement over neighbours for every count and seed", () => {
    for (let n = 2; n <= 11; n++) {
      const lengths = videos(Array.from({ length: n }, (_, i) => 100 * (i + 1)))
      for (let seed = 0; seed < 20; seed++) {
        const pairs = pairByDuration(lengths, seed)!
        const ids = lengths.map((v) => v.videoId)
        assert.deepStrictEqual(Object.keys(pairs).sort(), [...ids].sort(), `n ${n} seed ${seed}`)
        assert.deepStrictEqual(Object.values(pairs).sort(), [...ids].sort(), `a permutation: n ${n} seed ${seed}`)
        for (const [video, partner] of Object.entries(pairs)) {
          assert.notStrictEqual(video, partner)
          // Sorted by length, a partner is a neighbour or, in a cycle of three, two places away.
          assert.isAtMost(Math.abs(ids.indexOf(video) - ids.indexOf(partner)), 2, `n ${n} seed ${seed}`)
        }
      }
    }
  })

  it("is the same for the same seed, and the seed picks among the neighbour matchings", () => {
    const lengths = videos([300, 900, 600, 1500, 1200, 1800])
    assert.deepStrictEqual(pairByDuration(lengths, 7), pairByDuration([...lengths].reverse(), 7))
    const seen = new Set(Array.from({ length: 12 }, (_, seed) => JSON.stringify(pairByDuration(lengths, seed))))
    assert.isAbove(seen.size, 1)
  })

  it("needs two videos", () => {
    assert.isUndefined(pairByDuration(videos([600]), 1))
    assert.isUndefined(pairByDuration([{ videoId: "a", seconds: 1 }, { videoId: "a", seconds: 1 }], 1))
  })
})

describe("chanceLetter (the chance control's draw)", () => {
  it("draws uniformly among the options, the same letter for the same seed and question", () => {
    const counts = new Map<string, number>()
    for (let i = 0; i < 4_000; i++) {
      const letter = chanceLetter(`q${i}`, 4, 1)!
      assert.include(["A", "B", "C", "D"], letter)
      assert.strictEqual(chanceLetter(`q${i}`, 4, 1), letter)
      counts.set(letter, (counts.get(letter) ?? 0) + 1)
    }
    for (const count of counts.values()) assert.isTrue(count > 850 && count < 1_150, `${count} of 4000`)
    const other = Array.from({ length: 50 }, (_, i) => chanceLetter(`q${i}`, 4, 2))
    const same = Array.from({ length: 50 }, (_, i) => chanceLetter(`q${i}`, 4, 1))
    assert.notDeepEqual(other, same)
  })

  it("has nothing to draw from a question without options", () => {
    assert.isNull(chanceLetter("q1", 0, 1))
    assert.strictEqual(chanceLetter("q1", 1, 1), "A")
  })
})

describe("the run record's control", () => {
  const decode = Schema.decodeUnknownSync(StoredRunConfigJson)

  it("reads a record written before controls as no control", () => {
    const old = decode(JSON.stringify({ protocol: "json", maxSteps: 15, questions: 7 }))
    assert.strictEqual(runControl(old), "none")
    assert.isUndefined(old.controlPairs)
  })

  it("reads a control's kind, seed and pairing back", () => {
    const config = decode(
      JSON.stringify({ control: "shuffled", controlSeed: 3, controlPairs: { a: "b", b: "a" } })
    )
    assert.strictEqual(runControl(config), "shuffled")
    assert.strictEqual(config.controlSeed, 3)
    assert.deepStrictEqual(config.controlPairs, { a: "b", b: "a" })
    // A kind a later version may add reads as absent, not as a bad record.
    assert.strictEqual(runControl(decode(JSON.stringify({ control: "mirror" }))), "none")
  })
})

describe("the blind control's prompt and reply", () => {
  const question = {
    questionId: "q1",
    question: "How many eggs does the host cook?",
    options: ["A. Two", "B. Three", "C. Four", "D. Six"],
    taskType: "Counting Problem"
  }

  it.effect("asks with the question and options alone, in each packaged pack", () =>
    Effect.gen(function*() {
      for (const pack of ["en", "zh"] as const) {
        const dir = packagedPromptsDir(pack)
        const prompts = yield* loadPromptManager(dir)
        const text = renderBlindPrompt(yield* loadBlindPrompt(dir), prompts, question)
        assert.include(text, question.question)
        for (const option of question.options) assert.include(text, option)
        assert.include(text, "Counting Problem")
        assert.notInclude(text, "{{")
        assert.notMatch(text, /_L1_|view_node|submit_answer|tool/i)
        // No task type: its line is dropped, not left empty.
        const bare = renderBlindPrompt(yield* loadBlindPrompt(dir), prompts, { ...question, taskType: undefined })
        assert.notMatch(bare, /Task type|题型/)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("refuses a pack without blind.md, naming the file and the fix", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(loadBlindPrompt("/nonexistent/pack"))
      assert.strictEqual(error.reason, "NotFound")
      assert.strictEqual(
        error.message,
        "/nonexistent/pack/blind.md: missing — --control blind asks with the pack's blind.md; copy it from the en pack and adapt it"
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  it("reads the reply's letter by the answer normalizer, and says so when it names none", () => {
    const usage = emptyUsage()
    const answered = blindPrediction(question, "<think>maybe A</think>The answer is C. Shakshuka uses four.", usage)
    assert.strictEqual(answered.prediction, "C")
    assert.strictEqual(answered.stopReason, "finished")
    assert.strictEqual(answered.reasoning, "The answer is C. Shakshuka uses four.")
    assert.strictEqual(answered.stepsUsed, 0)
    const none = blindPrediction(question, "I cannot know without the video.", usage)
    assert.isNull(none.prediction)
    assert.strictEqual(none.stopReason, "parse_error")
    assert.strictEqual(none.error, "the blind reply names no option letter: \"I cannot know without the video.\"")
  })
})
