/**
 * The documented generic layout: one caption a line, `{"video_id", "start", "end", "text"}` (seconds),
 * lines of one video in any order. Each line is read through the user-JSON reader (depth-capped).
 */
import { Either } from "effect"
import type { SubtitleCue } from "../../domain/Media.js"
import { parseUserJson } from "../../domain/UserJson.js"
import * as Imported from "./ImportedVideo.js"

export const readJsonl = (file: string, text: string): Imported.VideosRead => {
  const byVideo = new Map<string, { captions: Array<Imported.ImportedCaption>; transcript: Array<SubtitleCue> }>()
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === "") continue
    const where = `${file}: line ${i + 1}`
    const parsed = parseUserJson(where, line)
    if (Either.isLeft(parsed)) {
      return Either.left(new Imported.TreeImportError({ reason: "BadInput", message: parsed.left.message }))
    }
    const row = parsed.right
    if (!Imported.isRecord(row)) {
      return Either.left(Imported.badInput(where, "", "expected an object {video_id, start, end, text}"))
    }
    const id = row["video_id"]
    if (typeof id !== "string" && typeof id !== "number") {
      return Either.left(
        Imported.badInput(where, "video_id", `expected a string, found ${JSON.stringify(id) ?? "nothing"}`)
      )
    }
    const start = Imported.seconds(where, "start", row["start"])
    if (Either.isLeft(start)) return Either.left(start.left)
    const end = Imported.seconds(where, "end", row["end"])
    if (Either.isLeft(end)) return Either.left(end.left)
    const body = Imported.captionText(where, "text", row["text"])
    if (Either.isLeft(body)) return Either.left(body.left)
    const made = Imported.caption(where, "end", start.right, end.right, body.right)
    if (Either.isLeft(made)) return Either.left(made.left)
    const key = String(id)
    let entry = byVideo.get(key)
    if (entry === undefined) {
      entry = { captions: [], transcript: [] }
      byVideo.set(key, entry)
    }
    entry.captions.push(made.right)
    const spoken = typeof row["transcript"] === "string" ? row["transcript"].replace(/\s+/g, " ").trim() : ""
    if (spoken !== "") entry.transcript.push({ start: start.right, end: end.right, text: spoken })
  }
  const videos: Array<Imported.ImportedVideo> = []
  for (const [id, entry] of byVideo) {
    const video = Imported.importedVideo(file, id, id, entry.captions, {
      transcript: entry.transcript.sort((a, b) => a.start - b.start)
    })
    if (Either.isLeft(video)) return Either.left(video.left)
    videos.push(video.right)
  }
  if (videos.length === 0) {
    return Either.left(
      Imported.badInput(file, "", "no Imported.caption lines", "give one {video_id, start, end, text} a line")
    )
  }
  return Either.right(videos)
}
