/**
 * The builder's model exchanges, as plain functions: the text of an event (vision) call and of a scene
 * (text) call, and the decoding of their replies into cards — repaired like agent replies, checked with
 * the tree's card schemas, and, when a reply cannot be used, a degraded card made from its raw text.
 */
import { Either, Schema } from "effect"
import { firstDecodeIssue, formatPath } from "../../domain/DecodeIssue.js"
import type { SubtitleCue } from "../../domain/Media.js"
import {
  cardFieldsByLevel,
  cardSchemaByLevel,
  listFieldsByLevel,
  summaryFieldByLevel,
  textFieldsByLevel,
  withCardDefaults
} from "../../domain/Tree.js"
import { countOf } from "../../text/Format.js"
import { parseJson } from "../agent/Parse.js"
import { subtitleCallChars } from "./Subtitles.js"

export type Card = Readonly<Record<string, unknown>>

const seconds = (t: number) => `${(Math.round(t * 10) / 10).toFixed(1)} s`

const cueLine = (cue: SubtitleCue) =>
  `[${(Math.round(cue.start * 10) / 10).toFixed(1)}–${seconds(cue.end)}] ${cue.text.replace(/\s+/g, " ").trim()}`

/**
 * Cue lines as the models read them: `[12.0–14.5 s] text`, at most `maxChars` of them (the line that
 * crosses it is cut with "…"), then one line counting the cues left out.
 */
export const cueLines = (cues: ReadonlyArray<SubtitleCue>, maxChars = Number.POSITIVE_INFINITY): string => {
  if (cues.length === 0) return "(none)"
  const lines: Array<string> = []
  let used = 0
  for (const cue of cues) {
    const line = cueLine(cue)
    if (used + line.length > maxChars) {
      const room = Math.floor(maxChars - used)
      if (room > 0) lines.push(`${line.slice(0, room).trimEnd()}…`)
      const left = cues.length - lines.length
      if (left > 0) lines.push(`(${left} more ${left === 1 ? "cue" : "cues"} in this span not shown)`)
      break
    }
    lines.push(line)
    used += line.length + 1
  }
  return lines.join("\n")
}

/** The user text of an event call; the images follow in the same order as the frame list. */
export const eventText = (input: {
  readonly index: number
  readonly total: number
  readonly start: number
  readonly end: number
  readonly frameTimes: ReadonlyArray<number>
  readonly cues: ReadonlyArray<SubtitleCue>
}): string =>
  [
    `Event ${input.index + 1} of ${input.total}: ${seconds(input.start)} – ${seconds(input.end)}`,
    `Frames (${input.frameTimes.length}, attached in this order):`,
    ...input.frameTimes.map((time, i) => `${i + 1}. t=${seconds(time)}`),
    "Subtitles:",
    cueLines(input.cues, subtitleCallChars(input.end - input.start))
  ].join("\n")

const list = (card: Card, field: string): string => {
  const value = card[field]
  return Array.isArray(value) ? value.join("; ") : ""
}

/** The user text of a scene call: every event card of the scene, with its subtitles. */
export const sceneText = (input: {
  readonly index: number
  readonly start: number
  readonly end: number
  readonly events: ReadonlyArray<
    { readonly start: number; readonly end: number; readonly card: Card; readonly subtitle: string }
  >
}): string =>
  [
    `Scene ${input.index + 1}: ${seconds(input.start)} – ${seconds(input.end)}, ${
      countOf(input.events.length, "event")
    }`,
    ...input.events.flatMap((event, i) => [
      "",
      `Event ${i + 1} (${seconds(event.start)} – ${seconds(event.end)}): ${
        String(event.card["event_description"] ?? "")
      }`,
      ...[
        ["entities", list(event.card, "entities")],
        ["actions", list(event.card, "actions")],
        ["state changes", String(event.card["state_changes"] ?? "")],
        ["on-screen text", list(event.card, "visible_text")],
        ["subtitles", event.subtitle.replace(/\s+/g, " ").trim()]
      ].filter(([, value]) => value !== "").map(([label, value]) => `  ${label}: ${value}`)
    ])
  ].join("\n")

/** Appended to the same request when a reply could not be used. */
export const retryText = (text: string, problem: string): string =>
  `${text}\n\nYour previous reply could not be used: ${problem}. Reply again with only the JSON object described in the instructions.`

/**
 * The card with every field of its level present (lists [], text "", visual_attributes {}) and nothing
 * else, in card order: keys a model adds for its own bookkeeping (`index`, `frame_number`, `time`, …)
 * would otherwise reach `tree show` and the agent. The builder's own `degraded` mark stays.
 */
export const completeCard = (level: 1 | 2 | 3, card: Card): Record<string, unknown> => {
  const given = withCardDefaults(level, card)
  const out: Record<string, unknown> = {}
  for (const field of cardFieldsByLevel[level]) out[field] = given[field]
  if (given["degraded"] === true) out["degraded"] = true
  for (const field of textFieldsByLevel[level]) if (typeof out[field] !== "string") out[field] = ""
  for (const field of listFieldsByLevel[level]) {
    const value = out[field] as ReadonlyArray<unknown>
    // Trimmed, blank and repeated items dropped, order kept: what the entity appendix shows.
    out[field] = [
      ...new Set(
        value.filter((item): item is string => typeof item === "string").map((item) => item.trim()).filter((item) =>
          item !== ""
        )
      )
    ]
  }
  if (level === 3 && (typeof out["visual_attributes"] !== "object" || out["visual_attributes"] === null)) {
    out["visual_attributes"] = {}
  }
  return out
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const decodeCard = (
  level: 1 | 2 | 3,
  value: unknown,
  at: ReadonlyArray<PropertyKey>
): Either.Either<Record<string, unknown>, string> => {
  const decoded = Schema.decodeUnknownEither(
    cardSchemaByLevel[level] as unknown as Schema.Schema<Record<string, unknown>, unknown>
  )(value)
  if (Either.isLeft(decoded)) {
    const issue = firstDecodeIssue(decoded.left, at)
    return Either.left(`${issue.field === "" ? "the reply" : issue.field}: ${issue.message}`)
  }
  // `degraded` is the builder's word about a reply, never the model's own.
  const card = completeCard(level, { ...decoded.right, degraded: undefined })
  const summary = summaryFieldByLevel[level]
  if (String(card[summary]).trim() === "") {
    return Either.left(`${formatPath([...at, summary])}: missing or empty — every card needs its ${summary}`)
  }
  return Either.right(card)
}

const parseObject = (raw: string): Either.Either<Record<string, unknown>, string> => {
  let value: unknown
  try {
    value = parseJson(raw)
  } catch (error) {
    // parseJson's own words ("no JSON object found", "… could not be repaired") go back to the model.
    return Either.left(`expected one JSON object: ${error instanceof Error ? error.message : String(error)}`)
  }
  return isRecord(value) ? Either.right(value) : Either.left("expected one JSON object")
}

export interface EventCards {
  readonly event: Record<string, unknown>
  readonly frames: ReadonlyArray<Record<string, unknown>>
}

/**
 * `{"event": {L2 card}, "frames": [L3 card × frames sent]}`; an event card written at the top level
 * beside `frames` is accepted too (models often flatten it).
 */
export const decodeEventReply = (raw: string, frameCount: number): Either.Either<EventCards, string> =>
  Either.gen(function*() {
    const reply = yield* parseObject(raw)
    const eventValue = isRecord(reply["event"])
      ? reply["event"]
      : "event_description" in reply
      ? { ...reply, frames: undefined }
      : undefined
    if (eventValue === undefined) return yield* Either.left("missing \"event\" object")
    const event = yield* decodeCard(2, eventValue, isRecord(reply["event"]) ? ["event"] : [])
    const frames = reply["frames"]
    if (!Array.isArray(frames)) return yield* Either.left("missing \"frames\" list (one card per image, in order)")
    if (frames.length !== frameCount) {
      return yield* Either.left(`"frames" has ${frames.length} cards, expected ${frameCount} (one per image, in order)`)
    }
    const cards: Array<Record<string, unknown>> = []
    for (const [i, frame] of frames.entries()) {
      cards.push(yield* decodeCard(3, frame, ["frames", i]))
    }
    return { event, frames: cards }
  })

/** An event card written from text alone (an import's captions): the object itself, or `{"event": {…}}`. */
export const decodeEventCardReply = (raw: string): Either.Either<Record<string, unknown>, string> =>
  Either.flatMap(
    parseObject(raw),
    (reply) => isRecord(reply["event"]) ? decodeCard(2, reply["event"], ["event"]) : decodeCard(2, reply, [])
  )

export const degradedEventCard = (raw: string): Record<string, unknown> =>
  completeCard(2, { event_description: degradedText(raw), degraded: true })

/** A scene card: the object itself, or `{"scene": {…}}`. */
export const decodeSceneReply = (raw: string): Either.Either<Record<string, unknown>, string> =>
  Either.flatMap(
    parseObject(raw),
    (reply) => isRecord(reply["scene"]) ? decodeCard(1, reply["scene"], ["scene"]) : decodeCard(1, reply, [])
  )

/** Reply text made readable for a card: JSON punctuation and key names gone, length capped. */
export const degradedText = (raw: string): string => {
  const text = raw
    .replace(/```[a-z]*|```/gi, " ")
    .replace(/"[a-z_]+"\s*:/gi, " ")
    .replace(/[{}[\]"]+/g, " ")
    .replace(/\s*,\s*/g, ", ")
    .replace(/\s+/g, " ")
    .trim()
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text
}

/**
 * Cards kept when the second reply is unusable too: the raw text as the summary, marked `degraded`.
 * Frame cards that did decode on their own are kept; the others are empty and marked.
 */
export const degradedEventCards = (raw: string, frameCount: number): EventCards => {
  const salvaged = Either.getOrUndefined(parseObject(raw))
  const frames = Array.isArray(salvaged?.["frames"]) ? (salvaged["frames"] as ReadonlyArray<unknown>) : []
  return {
    event: completeCard(2, { event_description: degradedText(raw), degraded: true }),
    frames: Array.from({ length: frameCount }, (_, i) => {
      const decoded = frames.length === frameCount ? decodeCard(3, frames[i], []) : Either.left("")
      return Either.isRight(decoded) ? decoded.right : completeCard(3, { frame_summary: "", degraded: true })
    })
  }
}

export const degradedSceneCard = (raw: string): Record<string, unknown> =>
  completeCard(1, { scene_summary: degradedText(raw), degraded: true })
