/**
 * Video-MME-v2's subtitles, for the builder: `<video_id>.jsonl`, one word per line, `{"text", "start_time",
 * "end_time"}` in seconds. Words are grouped into cues a reader can take in at once: a new cue starts after a
 * pause of more than 1 s (a new utterance), or when the next word would stretch the cue past 7 s or 20 words
 * (about two subtitle lines on screen). The benchmark's own script groups at 0.5 s pauses and sentence ends
 * for its interleaved prompt; vtree's cues only have to place speech on the tree's timeline. Pure.
 */
import { Either } from "effect"
import { type SubtitleCue, SubtitleError } from "../../domain/Media.js"
import { parseUserJson } from "../../domain/UserJson.js"
import { isRecord } from "./Rows.js"

const maxPause = 1
const maxSpan = 7
const maxWords = 20

interface Word {
  readonly text: string
  readonly start: number
  readonly end: number
}

const wordOf = (value: unknown): Word | null => {
  if (!isRecord(value)) return null
  const { end_time, start_time, text } = value
  if (typeof text !== "string" || typeof start_time !== "number" || typeof end_time !== "number") return null
  if (!Number.isFinite(start_time) || !Number.isFinite(end_time) || end_time < start_time) return null
  return { text: text.replace(/\s+/g, " ").trim(), start: start_time, end: end_time }
}

/** The cues of one word-level file's text, in start order; a line that is not a word fails naming it. */
export const wordCues = (path: string, text: string): Either.Either<ReadonlyArray<SubtitleCue>, SubtitleError> => {
  const words: Array<Word> = []
  for (const [i, line] of text.replace(/^\uFEFF/, "").split(/\r?\n/).entries()) {
    if (line.trim() === "") continue
    const word = Either.getOrNull(parseUserJson(path, line).pipe(Either.map(wordOf)))
    if (word === null) {
      return Either.left(
        new SubtitleError({
          reason: "Syntax",
          path,
          line: i + 1,
          message: `${path}:${
            i + 1
          }: expected {"text", "start_time", "end_time"} (times in seconds) — fix the line or remove the file`
        })
      )
    }
    if (word.text !== "") words.push(word)
  }
  words.sort((a, b) => a.start - b.start || a.end - b.end)
  const cues: Array<SubtitleCue> = []
  let current: Array<Word> = []
  const close = () => {
    if (current.length === 0) return
    cues.push({
      start: current[0]!.start,
      end: Math.max(...current.map((w) => w.end)),
      text: current.map((w) => w.text).join(" ")
    })
    current = []
  }
  for (const word of words) {
    const first = current[0]
    const last = current.at(-1)
    if (
      first !== undefined && last !== undefined &&
      (word.start - last.end > maxPause || word.end - first.start > maxSpan || current.length >= maxWords)
    ) close()
    current.push(word)
  }
  close()
  return Either.right(cues)
}
