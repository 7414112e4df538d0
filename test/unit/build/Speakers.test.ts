import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parseSubtitles } from "../../../src/domain/SubtitleFormat.js"
import { cuesOfReply } from "../../../src/layers/openai/OpenAiSpeech.js"
import { labelSpeakers, shiftCues } from "../../../src/programs/builder/Transcription.js"

describe("speakers", () => {
  it("reads the speaker a diarizing server puts on each segment, as text or a number", () => {
    const reply = {
      text: "hi there yes",
      segments: [
        { start: 0, end: 1, text: " hi ", speaker: "A" },
        { start: 1, end: 2, text: "there", speaker: 0 },
        { start: 2, end: 3, text: "yes", speaker: null },
        { start: 3, end: 4, text: "no" }
      ]
    }
    assert.deepStrictEqual(Either.getOrThrow(cuesOfReply(reply)), [
      { start: 0, end: 1, text: "hi", speaker: "A" },
      { start: 1, end: 2, text: "there", speaker: "0" },
      { start: 2, end: 3, text: "yes" },
      { start: 3, end: 4, text: "no" }
    ])
  })

  it("names made-up labels S1, S2, … in the order they first speak, keeps given names, leaves the rest", () => {
    const cues = labelSpeakers([
      { start: 0, end: 1, text: "one", speaker: "SPEAKER_01" },
      { start: 1, end: 2, text: "two", speaker: "SPEAKER_00" },
      { start: 2, end: 3, text: "three", speaker: "SPEAKER_01" },
      { start: 3, end: 4, text: "four", speaker: "Dr. [Jane]\nDoe" },
      { start: 4, end: 5, text: "five" }
    ])
    assert.deepStrictEqual(cues.map((cue) => cue.text), [
      "[S1] one",
      "[S2] two",
      "[S1] three",
      "[Dr. Jane Doe] four",
      "five"
    ])
    assert.isTrue(cues.every((cue) => !("speaker" in cue)))
  })

  it("keeps the speaker when a chunk's times move onto the video's clock", () => {
    assert.deepStrictEqual(
      shiftCues([{ start: 1, end: 2, text: " hi ", speaker: "B" }], { startSeconds: 60, durationSeconds: 30 }),
      [{ start: 61, end: 62, text: "hi", speaker: "B" }]
    )
  })

  it.effect("writes WebVTT voice tags as the speaker's name before the words", () =>
    Effect.gen(function*() {
      const cues = yield* parseSubtitles(
        [
          "WEBVTT",
          "",
          "00:00:01.000 --> 00:00:03.000",
          "<v Roger Bingham>We are in New York City",
          "",
          "00:00:04.000 --> 00:00:06.000",
          "<v.loud Esme>Hello</v> <v Mary>Hi &amp; bye</v>",
          "",
          "00:00:07.000 --> 00:00:08.000",
          "<i>No voice here</i>",
          ""
        ].join("\n"),
        { path: "talk.vtt" }
      )
      assert.deepStrictEqual(cues.map((cue) => cue.text), [
        "[Roger Bingham] We are in New York City",
        "[Esme] Hello [Mary] Hi & bye",
        "No voice here"
      ])
    }))
})
