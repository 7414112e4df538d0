/**
 * LongVideoBench's JSON subtitles, for the builder: a list in either of two entry shapes,
 * `{"timestamp": [start, end], "text"}` (seconds; an end that is not a number means the end of the video)
 * or `{"start": "HH:MM:SS.mmm", "end": "HH:MM:SS.mmm", "line"}`. Times are shifted back by the row's
 * `starting_timestamp_for_subtitles`, so they count from the start of the clip; cues that end before it
 * are dropped, and one that straddles it starts at 0. Pure.
 */
import { Either } from "effect"
import { type SubtitleCue, SubtitleError } from "../../domain/Media.js"
import { describeValue, isRecord } from "./Rows.js"

export interface SubtitleTiming {
  /** `starting_timestamp_for_subtitles`: where the clip starts on the subtitles' clock, in seconds. */
  readonly offset: number
  /** The clip's length in seconds: the end of a cue whose end is not a number. */
  readonly videoDuration: number
}

const clock = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:[.,]\d+)?)$/

/** `HH:MM:SS.mmm` (or `MM:SS.mmm`, a comma for the point) in seconds; null for anything else. */
export const clockSeconds = (text: string): number | null => {
  const m = clock.exec(text.trim())
  if (m === null) return null
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]!.replace(",", "."))
}

const cleanText = (text: string): string => text.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim()

const fail = (path: string, index: number, problem: string) =>
  Either.left(
    new SubtitleError({
      reason: "Syntax",
      path,
      message:
        `${path}: index ${index}: ${problem} — write {"timestamp": [start, end], "text"} or {"start": "HH:MM:SS.mmm", "end", "line"}`
    })
  )

/** The cues of one subtitle file's JSON value, in start order, shifted to the clip's clock. */
export const parseLongVideoBenchSubtitles = (
  path: string,
  value: unknown,
  timing: SubtitleTiming
): Either.Either<ReadonlyArray<SubtitleCue>, SubtitleError> => {
  if (!Array.isArray(value)) {
    return fail(path, 0, `expected a JSON list of subtitle entries, got ${describeValue(value)}`)
  }
  const cues: Array<SubtitleCue> = []
  for (const [i, entry] of value.entries()) {
    if (!isRecord(entry)) return fail(path, i, `expected an object, got ${describeValue(entry)}`)
    let start: number | null
    let end: number | null
    let text: unknown
    if ("timestamp" in entry) {
      const ts = entry.timestamp
      if (!Array.isArray(ts) || typeof ts[0] !== "number" || !Number.isFinite(ts[0])) {
        return fail(path, i, `timestamp: expected [start, end] in seconds, got ${describeValue(ts)}`)
      }
      start = ts[0]
      end = typeof ts[1] === "number" && Number.isFinite(ts[1]) ? ts[1] - timing.offset : timing.videoDuration
      text = entry.text
    } else {
      start = typeof entry.start === "string" ? clockSeconds(entry.start) : null
      if (start === null) return fail(path, i, `start: expected "HH:MM:SS.mmm", got ${describeValue(entry.start)}`)
      const e = typeof entry.end === "string" ? clockSeconds(entry.end) : null
      end = e === null ? timing.videoDuration : e - timing.offset
      text = entry.line
    }
    if (typeof text !== "string") return fail(path, i, `text: expected a string, got ${describeValue(text)}`)
    const plain = cleanText(text)
    const shifted = start - timing.offset
    if (plain === "" || end <= 0) continue
    cues.push({ start: Math.max(0, shifted), end: Math.max(Math.max(0, shifted), end), text: plain })
  }
  return Either.right(cues.sort((a, b) => a.start - b.start || a.end - b.end))
}
