import { Effect } from "effect"
import * as captions from "media-captions"
import { type SubtitleCue, SubtitleError } from "./Media.js"

// media-captions ships declarations with extensionless relative imports, which NodeNext resolution
// cannot follow (every export reads as missing), so the one function used is typed here from its docs.
interface ParsedCaptions {
  readonly cues: ReadonlyArray<{ readonly startTime: number; readonly endTime: number; readonly text: string }>
  readonly errors: ReadonlyArray<{ readonly line: number; readonly message: string }>
}
interface LineReader {
  readonly getReader: () => {
    readonly read: () => Promise<{ readonly done: false; readonly value: string } | { readonly done: true }>
    readonly cancel: () => void
  }
}
const { parseTextStream } = captions as unknown as {
  readonly parseTextStream: (
    lines: LineReader,
    options: { readonly type: "srt" | "vtt"; readonly errors: boolean }
  ) => Promise<ParsedCaptions>
}

/**
 * The file's lines, one per read, as media-captions' stream parser reads them. Its `parseText` first
 * queues every line in a web ReadableStream, whose queue is an array shifted on each read: quadratic in
 * the line count (100,000 cues took 80 s). This reader hands out the lines by index.
 */
const lineReader = (text: string): LineReader => ({
  getReader: () => {
    const lines = text.split(/\r?\n|\r/)
    let next = 0
    return {
      read: () =>
        Promise.resolve(
          next < lines.length ? { done: false as const, value: lines[next++]! } : { done: true as const }
        ),
      cancel: () => {
        next = lines.length
      }
    }
  }
})

export type SubtitleFormat = "srt" | "vtt"

/** The format a subtitle file is written in: WebVTT announces itself; everything else is read as SRT. */
export const formatOf = (path: string, text: string): SubtitleFormat =>
  /\.vtt$/i.test(path) || /^\uFEFF?WEBVTT/.test(text) ? "vtt" : "srt"

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " " }

/**
 * Cue text as a reader would see it: markup gone (`<font …>` from Video-MME's files, `<i>`, WebVTT
 * voice and class spans, karaoke timestamps, `{\an8}` positioning codes), entities decoded, lines
 * joined by single spaces.
 */
export const plainText = (text: string): string =>
  text
    .replace(/<[^>]*>/g, "")
    .replace(/\{\\[^}]*\}/g, "")
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, name: string) => entities[name] ?? "")
    .replace(/\s+/g, " ")
    .trim()

/** A speaker's name as subtitles carry it (`[Name] …`): no brackets or line breaks, at most 40 characters. */
export const speakerLabel = (name: string): string => name.replace(/[[\]\s]+/g, " ").trim().slice(0, 40)

/**
 * WebVTT voice spans (`<v Name>…</v>`, `<v.loud Name>`) as the speaker's name in brackets before what
 * they say (`[Name] …`), the way diarized speech is written: plainText would drop the name with the tag.
 */
const voiceText = (text: string): string =>
  text.replace(/<v(?:\.[^\s>]*)?\s+([^>]*)>/g, (_, name: string) => {
    const speaker = speakerLabel(name)
    return speaker === "" ? "" : `[${speaker}] `
  })

/**
 * Parses SRT or WebVTT text into cues (times in seconds, text plain, WebVTT speakers kept as `[Name] `,
 * empty cues dropped, in start order). A malformed file fails naming `path` and the first bad line: a
 * build must not quietly lose half of a file's captions.
 */
export const parseSubtitles = Effect.fn("SubtitleFormat.parseSubtitles")(function*(
  text: string,
  options: { readonly path: string; readonly format?: SubtitleFormat }
) {
  const format = options.format ?? formatOf(options.path, text)
  const parsed = yield* Effect.promise(() => parseTextStream(lineReader(text), { type: format, errors: true }))
  const first = parsed.errors[0]
  if (first !== undefined) {
    return yield* new SubtitleError({
      reason: "Syntax",
      path: options.path,
      line: first.line,
      message: `${options.path}:${first.line}: ${
        first.message.replace(/ on line \d+$/, "")
      } — fix the line or remove the file`
    })
  }
  // The parser skips text it cannot place without an error; a file of such text is not subtitles.
  if (parsed.cues.length === 0 && text.trim() !== "" && text.trim() !== "WEBVTT") {
    return yield* new SubtitleError({
      reason: "NoCues",
      path: options.path,
      line: 1,
      message: `${options.path}:1: no ${
        format === "vtt" ? "WebVTT" : "SRT"
      } cue found — check that this is a subtitle file`
    })
  }
  const cues: Array<SubtitleCue> = []
  for (const cue of parsed.cues) {
    const plain = plainText(format === "vtt" ? voiceText(cue.text) : cue.text)
    if (plain !== "") cues.push({ start: cue.startTime, end: cue.endTime, text: plain })
  }
  return cues.sort((a, b) => a.start - b.start || a.end - b.end)
})
