/**
 * VideoRAG's `kv_store_video_segments.json`: `{video: {"<i>": {content, time: "s-e", transcript}}}`.
 * `content` is the segment's caption; `transcript` (the ASR of the segment) becomes subtitles.
 */
import { Either } from "effect"
import { formatPath } from "../../domain/DecodeIssue.js"
import type { SubtitleCue } from "../../domain/Media.js"
import * as Imported from "./ImportedVideo.js"

/** `"12-24.5"` → [12, 24.5]. */
export const timeSpan = (value: unknown): readonly [number, number] | undefined => {
  if (typeof value !== "string") return undefined
  const match = /^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$/.exec(value)
  if (match === null) return undefined
  const start = Imported.numericKey(match[1]!)
  const end = Imported.numericKey(match[2]!)
  return start === undefined || end === undefined ? undefined : [start, end]
}

export const readVideoRag = (file: string, json: unknown): Imported.VideosRead => {
  if (!Imported.isRecord(json)) {
    return Either.left(Imported.badInput(file, "", "expected an object mapping video names to segments"))
  }
  const videos: Array<Imported.ImportedVideo> = []
  for (const name in json) {
    const segments = json[name]
    if (!Imported.isRecord(segments)) {
      return Either.left(Imported.badInput(file, name, "expected an object {\"<index>\": {content, time, transcript}}"))
    }
    const captions: Array<Imported.ImportedCaption> = []
    const transcript: Array<SubtitleCue> = []
    for (const index in segments) {
      const segment = segments[index]
      const at = (field?: string) => formatPath(field === undefined ? [name, index] : [name, index, field])
      if (!Imported.isRecord(segment)) {
        return Either.left(Imported.badInput(file, at(), "expected {content, time, transcript}"))
      }
      const span = timeSpan(segment["time"])
      if (span === undefined) {
        return Either.left(
          Imported.badInput(
            file,
            at("time"),
            `expected "<start>-<end>" in seconds, found ${JSON.stringify(segment["time"])}`
          )
        )
      }
      const text = Imported.captionText(file, at("content"), segment["content"])
      if (Either.isLeft(text)) return Either.left(text.left)
      const made = Imported.caption(file, at("time"), span[0], span[1], text.right)
      if (Either.isLeft(made)) return Either.left(made.left)
      captions.push(made.right)
      const spoken = typeof segment["transcript"] === "string" ? segment["transcript"].trim() : ""
      if (spoken !== "") transcript.push({ start: span[0], end: span[1], text: spoken.replace(/\s+/g, " ") })
    }
    const video = Imported.importedVideo(file, name, name, captions, {
      transcript: transcript.sort((a, b) => a.start - b.start)
    })
    if (Either.isLeft(video)) return Either.left(video.left)
    videos.push(video.right)
  }
  return Either.right(videos)
}
