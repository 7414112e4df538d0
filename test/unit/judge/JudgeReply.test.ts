import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { fillJudgePrompt, judgementKey, judgePromptOf } from "../../../src/programs/judge/JudgePrompt.js"
import { readJudgeReply } from "../../../src/programs/judge/JudgeReply.js"

describe("readJudgeReply", () => {
  it("reads a clean reply, one in a fence or after a think block, and a verdict in any case", () => {
    assert.deepStrictEqual(
      readJudgeReply("{\"verdict\": \"correct\", \"reason\": \"same city\"}"),
      Either.right({ verdict: "correct", reason: "same city", repaired: false })
    )
    assert.deepStrictEqual(
      readJudgeReply("<think>hmm</think>\n```json\n{\"verdict\": \" Incorrect \", \"reason\": \"blue\"}\n```"),
      Either.right({ verdict: "incorrect", reason: "blue", repaired: false })
    )
    assert.deepStrictEqual(
      readJudgeReply("Verdict follows. {\"verdict\": \"correct\"}"),
      Either.right({ verdict: "correct", reason: "", repaired: false })
    )
  })

  it("repairs a reply cut short or written with single quotes", () => {
    assert.deepStrictEqual(
      readJudgeReply("{\"verdict\": \"incorrect\", \"reason\": \"no door"),
      Either.right({ verdict: "incorrect", reason: "no door", repaired: true })
    )
    assert.deepStrictEqual(
      readJudgeReply("{'verdict': 'correct', 'reason': 'ok',}"),
      Either.right({ verdict: "correct", reason: "ok", repaired: true })
    )
  })

  it("is a judge failure, in words, for prose or a verdict that is neither correct nor incorrect", () => {
    const prose = readJudgeReply("I would say this one is correct.")
    assert.include(Either.isLeft(prose) ? prose.left : "", "held no JSON object")
    const other = readJudgeReply("{\"verdict\": \"partly\", \"reason\": \"half\"}")
    assert.include(Either.isLeft(other) ? other.left : "", "held no {\"verdict\"")
    assert.isTrue(Either.isLeft(readJudgeReply("")))
  })
})

describe("judge prompt", () => {
  it("needs the question, the reference and the answer, and fills each once as given", () => {
    assert.strictEqual(judgePromptOf("Q: {{question}} R: {{reference}}"), "lacks {{answer}}")
    const prompt = judgePromptOf("Q: {{question}}\nR: {{reference}}\nA: {{answer}}")
    assert.isFalse(typeof prompt === "string")
    if (typeof prompt === "string") return
    assert.strictEqual(
      fillJudgePrompt(prompt, { question: "Why {{answer}}?", reference: "$1 rain", answer: "rain" }),
      "Q: Why {{answer}}?\nR: $1 rain\nA: rain"
    )
    assert.match(prompt.hash, /^[0-9a-f]{64}$/)
  })

  it("keys a judgement by question, answer, reference, judge model and prompt: any change is another key", () => {
    const base = { question: "q", answer: "a", reference: "r", judgeModel: "m", promptHash: "h" }
    const key = judgementKey(base)
    assert.strictEqual(judgementKey({ ...base }), key)
    for (const field of Object.keys(base) as Array<keyof typeof base>) {
      assert.notStrictEqual(judgementKey({ ...base, [field]: `${base[field]}x` }), key, field)
    }
    // Fields never run into each other: ("ab", "c") is not ("a", "bc").
    assert.notStrictEqual(
      judgementKey({ ...base, question: "ab", answer: "c" }),
      judgementKey({ ...base, question: "a", answer: "bc" })
    )
  })
})
