import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { checkQuestionIds, checkRunId } from "../../../src/programs/tree/TreePreflight.js"

describe("plain-name checks of ids read from data (issue #21)", () => {
  it.effect("a question id or videoID holding ESC or BEL is refused, escaped in the message", () =>
    Effect.gen(function*() {
      const byQuestion = yield* Effect.flip(checkQuestionIds([{ questionId: "q\u001b[2J", videoId: "v" }]))
      assert.strictEqual(
        byQuestion.message,
        `question id "q\\u001b[2J" contains the control character U+001B — ids are names, not paths: fix the question file`
      )
      const byVideo = yield* Effect.flip(checkQuestionIds([{ questionId: "q", videoId: "v\u0007" }]))
      assert.strictEqual(
        byVideo.message,
        `question "q": videoID "v\\u0007" contains the control character U+0007 — a videoID names one folder under --trees: fix the question file`
      )
      yield* checkQuestionIds([{ questionId: "001-1", videoId: "視頻" }])
    }))

  it.effect("a run id holding a control character is refused; a plain one passes", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(checkRunId("run\u001b]0;owned\u0007"))
      assert.strictEqual(
        error.message,
        `--run-id "run\\u001b]0;owned\\u0007" contains the control character U+001B — a run id is a plain name: pick another`
      )
      yield* checkRunId("run-20260101-120000-abcd")
      yield* checkRunId(undefined)
    }))
})
