/**
 * Deep Video Discovery's caption stores. `captions.json`: `{"<s>_<e>": {caption: string | string[]}}`
 * with inclusive-second keys (`"0_9"` is the ten seconds [0, 10)), beside `subject_registry` (older
 * files: `character_registry`). The database file is NanoVectorDB JSON: `data: [{time_start_secs,
 * time_end_secs, caption}]`, `video_length` "HH:MM:SS" and the registry under `additional_data` or at
 * the top level; `matrix` (the embeddings) is ignored and the `[From … to …]` prefix of each caption
 * dropped (the node's own time range says it).
 */
import { Either } from "effect"
import { formatPath } from "../../domain/DecodeIssue.js"
import type { TreeEntity } from "../../domain/Tree.js"
import * as Imported from "./ImportedVideo.js"
import { importLimits } from "./ImportLimits.js"

export const registryKeys = ["subject_registry", "character_registry"] as const

/** `"01:02:03"`, `"02:03"`, `"75.5"` → Imported.seconds; undefined for anything else. */
export const clockSeconds = (text: string): number | undefined => {
  const parts = text.trim().split(":")
  if (parts.length > 3 || parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) return undefined
  return parts.reduce((total, part) => total * 60 + Number(part), 0)
}

/** `"10_19"` → [10, 19]. */
export const secondSpanKey = (key: string): readonly [number, number] | undefined => {
  const parts = key.split("_")
  if (parts.length !== 2) return undefined
  const start = Imported.numericKey(parts[0]!)
  const end = Imported.numericKey(parts[1]!)
  return start === undefined || end === undefined ? undefined : [start, end]
}

const registryText = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim()
  if (Array.isArray(value)) {
    const items = value.filter((item): item is string => typeof item === "string" && item.trim() !== "")
    return items.length === 0 ? undefined : items.map((item) => item.trim()).join("; ")
  }
  return undefined
}

/** When a subject was first seen: Imported.seconds, a clock time, or a Imported.caption key (its start). */
const firstSeen = (value: unknown): number | undefined => {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined
  if (typeof value !== "string") return undefined
  return clockSeconds(value) ?? secondSpanKey(value.trim())?.[0]
}

/** A subject registry `{id: {name, appearance, identity, first_seen}}` as the tree's entity registry. */
export const readRegistry = (
  file: string,
  at: ReadonlyArray<string>,
  value: unknown
): Either.Either<Array<TreeEntity>, Imported.TreeImportError> => {
  if (value === undefined || value === null) return Either.right([])
  if (!Imported.isRecord(value)) {
    return Either.left(
      Imported.badInput(file, formatPath(at), "expected an object mapping subject ids to {name, appearance, …}")
    )
  }
  const entities: Array<TreeEntity> = []
  for (const id in value) {
    const entry = value[id]
    if (!Imported.isRecord(entry)) {
      return Either.left(
        Imported.badInput(file, formatPath([...at, id]), "expected an object {name, appearance, identity, first_seen}")
      )
    }
    const name = registryText(entry["name"])
    const appearance = registryText(entry["appearance"])
    const identity = registryText(entry["identity"])
    const seen = firstSeen(entry["first_seen"])
    entities.push({
      id,
      ...(name === undefined ? {} : { name }),
      ...(appearance === undefined ? {} : { appearance }),
      ...(identity === undefined ? {} : { identity }),
      ...(seen === undefined ? {} : { first_seen: seen })
    })
  }
  return Either.right(entities)
}

const registryOf = (file: string, json: Readonly<Record<string, unknown>>, at: ReadonlyArray<string> = []) => {
  for (const key of registryKeys) if (json[key] !== undefined) return readRegistry(file, [...at, key], json[key])
  return Either.right([])
}

/** `captions.json` of one video. */
export const readDvdCaptions = (
  file: string,
  json: unknown,
  sourceId: string
): Imported.VideosRead => {
  if (!Imported.isRecord(json)) {
    return Either.left(Imported.badInput(file, "", "expected an object {\"<s>_<e>\": {caption}}"))
  }
  const captions: Array<Imported.ImportedCaption> = []
  for (const key in json) {
    if ((registryKeys as ReadonlyArray<string>).includes(key)) continue
    const span = secondSpanKey(key)
    if (span === undefined) {
      return Either.left(Imported.badInput(file, key, "expected a key \"<startSecond>_<endSecond>\" (\"0_9\")"))
    }
    const entry = json[key]
    const where = formatPath([key, "caption"])
    const text = Imported.captionText(file, where, Imported.isRecord(entry) ? entry["caption"] : entry)
    if (Either.isLeft(text)) return Either.left(text.left)
    // Inclusive seconds: "0_9" covers the tenth second too.
    const made = Imported.caption(file, key, span[0], span[1] + 1, text.right)
    if (Either.isLeft(made)) return Either.left(made.left)
    captions.push(made.right)
  }
  return Either.flatMap(
    registryOf(file, json),
    (entities) => Either.map(Imported.importedVideo(file, "", sourceId, captions, { entities }), (video) => [video])
  )
}

const fromToPrefix = /^\s*\[\s*from\b[^\]]*\bto\b[^\]]*\]\s*/i

/** DVD's database file (NanoVectorDB JSON) of one video. */
export const readDvdDatabase = (
  file: string,
  json: unknown,
  sourceId: string
): Imported.VideosRead => {
  if (!Imported.isRecord(json) || !Array.isArray(json["data"])) {
    return Either.left(Imported.badInput(file, "data", "expected a list of {time_start_secs, time_end_secs, caption}"))
  }
  const data = json["data"] as ReadonlyArray<unknown>
  const captions: Array<Imported.ImportedCaption> = []
  for (let i = 0; i < data.length; i++) {
    const row = data[i]
    const at = (field?: string) => formatPath(field === undefined ? ["data", i] : ["data", i, field])
    if (!Imported.isRecord(row)) {
      return Either.left(Imported.badInput(file, at(), "expected {time_start_secs, time_end_secs, caption}"))
    }
    const start = Imported.seconds(file, at("time_start_secs"), row["time_start_secs"])
    if (Either.isLeft(start)) return Either.left(start.left)
    const end = Imported.seconds(file, at("time_end_secs"), row["time_end_secs"])
    if (Either.isLeft(end)) return Either.left(end.left)
    const raw = typeof row["caption"] === "string" ? row["caption"].replace(fromToPrefix, "") : row["caption"]
    const text = Imported.captionText(file, at("caption"), raw)
    if (Either.isLeft(text)) return Either.left(text.left)
    const made = Imported.caption(file, at(), start.right, end.right, text.right)
    if (Either.isLeft(made)) return Either.left(made.left)
    captions.push(made.right)
  }
  const extra = Imported.isRecord(json["additional_data"]) ? json["additional_data"] : {}
  const lengthAt = extra["video_length"] !== undefined ? "additional_data.video_length" : "video_length"
  const length = extra["video_length"] ?? json["video_length"]
  let durationSeconds: number | undefined
  if (length !== undefined) {
    durationSeconds = typeof length === "number"
      ? length
      : typeof length === "string"
      ? clockSeconds(length)
      : undefined
    if (durationSeconds === undefined || !Number.isFinite(durationSeconds)) {
      return Either.left(Imported.badInput(file, lengthAt, `expected "HH:MM:SS", found ${JSON.stringify(length)}`))
    }
    if (durationSeconds > importLimits.maxSeconds) return Either.left(Imported.tooLate(file, lengthAt, durationSeconds))
  }
  const registry = registryKeys.some((key) => extra[key] !== undefined)
    ? registryOf(file, extra, ["additional_data"])
    : registryOf(file, json)
  return Either.flatMap(registry, (entities) =>
    Either.map(
      Imported.importedVideo(file, "", sourceId, captions, {
        entities,
        ...(durationSeconds === undefined ? {} : { durationSeconds })
      }),
      (video) => [video]
    ))
}
