/**
 * Which layout a caption file is in, read from its content (and, for VideoAgent's per-video files,
 * its `_cap.json` name). Only the first few entries are looked at: the reader checks every one.
 */
import { secondSpanKey } from "./Dvd.js"
import type { ImportFormat } from "./ImportedVideo.js"
import { isRecord, numericKey } from "./ImportedVideo.js"
import { frameSpanKey } from "./VideoAgent.js"
import { timeSpan } from "./VideoRag.js"

const sample = 8

const firstEntries = (record: Readonly<Record<string, unknown>>): Array<[string, unknown]> => {
  const out: Array<[string, unknown]> = []
  for (const key in record) {
    out.push([key, record[key]])
    if (out.length >= sample) break
  }
  return out
}

const isCaptionText = (value: unknown) =>
  typeof value === "string" || (Array.isArray(value) && value.every((item) => typeof item === "string"))

/** `{"0": caption, "1": …}`: one video's per-second captions. */
const isPerSecond = (value: unknown): boolean => {
  if (!isRecord(value)) return false
  const entries = firstEntries(value)
  return entries.length > 0 && entries.every(([key, text]) => numericKey(key) !== undefined && isCaptionText(text))
}

const isDvdDatabase = (json: Readonly<Record<string, unknown>>) =>
  Array.isArray(json["data"]) &&
  (json["data"].length === 0
    ? "matrix" in json || "embedding_dim" in json
    : isRecord(json["data"][0]) && "time_start_secs" in json["data"][0])

const isDvdCaptions = (json: Readonly<Record<string, unknown>>) => {
  const entries = firstEntries(json).filter(([key]) => key !== "subject_registry" && key !== "character_registry")
  return entries.length > 0 &&
    entries.every(([key, value]) => secondSpanKey(key) !== undefined && isRecord(value) && "caption" in value)
}

const isMemory = (json: Readonly<Record<string, unknown>>) => {
  const entries = firstEntries(json)
  return entries.length > 0 && entries.every(([key, value]) => frameSpanKey(key) !== undefined && isCaptionText(value))
}

const isVideoRag = (json: Readonly<Record<string, unknown>>) => {
  const entries = firstEntries(json)
  return entries.length > 0 && entries.every(([, segments]) => {
    if (!isRecord(segments)) return false
    const first = firstEntries(segments)[0]?.[1]
    return isRecord(first) && "content" in first && timeSpan(first["time"]) !== undefined
  })
}

const isLlovi = (json: Readonly<Record<string, unknown>>) => {
  const entries = firstEntries(json)
  return entries.length > 0 &&
    entries.every(([, value]) =>
      (Array.isArray(value) && value.slice(0, sample).every(isCaptionText)) || isPerSecond(value)
    )
}

/** The first line that is not blank, parsed, when it is a `{video_id, …, text}` object. */
const looksLikeJsonl = (text: string): boolean => {
  const lines = text.split("\n").map((line) => line.trim()).filter((line) => line !== "")
  if (lines.length < 1) return false
  try {
    const first: unknown = JSON.parse(lines[0]!)
    return isRecord(first) && "video_id" in first && "text" in first && (lines.length > 1 || "start" in first)
  } catch {
    return false
  }
}

/** The layout of a JSON Lines text, judged by its name and first line. */
export const sniffLines = (file: string, text: string): ImportFormat | undefined =>
  file.toLowerCase().endsWith(".jsonl") || looksLikeJsonl(text) ? "jsonl" : undefined

/** The layout of a parsed JSON file, or undefined when it is none of them. */
export const sniffJson = (file: string, json: unknown): ImportFormat | undefined => {
  if (!isRecord(json)) return undefined
  if (isDvdDatabase(json)) return "dvd"
  if (isDvdCaptions(json)) return "dvd"
  // One video's {"<second>": caption}: VideoAgent's per-video file, whatever it is named.
  if (isPerSecond(json)) return "videoagent"
  if (isMemory(json)) return "videoagent-memory"
  if (isVideoRag(json)) return "videorag"
  if (isLlovi(json)) return "llovi"
  return undefined
}

/** The layouts as a refusal names them. */
export const knownLayouts = [
  "llovi ({uid: [caption, …]} or {uid: {\"<second>\": caption}})",
  "videoagent (<video>_cap.json: {\"<second>\": caption})",
  "videoagent-memory ({\"<startFrame>_<endFrame>\": caption})",
  "dvd (captions.json {\"<s>_<e>\": {caption}} or the database {data: [{time_start_secs, …}]})",
  "videorag (kv_store_video_segments.json)",
  "jsonl ({video_id, start, end, text} a line)",
  "longvidsearch (video-caption.parquet: {vid, slice_num, cap} a clip)"
].join("; ")
