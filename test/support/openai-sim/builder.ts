/**
 * A stand-in for the models `vtree build` calls, for openai-sim and for the scripted fakes: it reads the
 * prompt text the builder sends (frame timestamps, subtitles, event cards) and answers with card JSON
 * derived from it, deterministically. It cannot see images, so its cards say only what the text says —
 * enough for a tree that validates, that the agent can navigate, and whose retrieval finds the speech.
 *
 *   OpenAiSim.start({ chat: …, intercept: answerBuildCalls })
 */
import type { ChatReply, SimRequest } from "./index.js"

interface Message {
  readonly role: string
  readonly content: unknown
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? (content as ReadonlyArray<{ type?: string; text?: string }>).map((
      part
    ) => (part.type === "text" ? part.text ?? "" : "")).join("\n")
    : ""

const messagesOf = (request: SimRequest): ReadonlyArray<Message> =>
  Array.isArray(request.body["messages"]) ? (request.body["messages"] as ReadonlyArray<Message>) : []

/**
 * An event call's system prompt shows the reply shape with a `"frames": [` list; a scene call's starts its
 * object with `"scene_summary":`; the entity registry's holds `"entities": [` and `"aliases"`.
 */
export const buildCallKind = (system: string): "event" | "scene" | "registry" | undefined =>
  system.includes("\"frames\": [") && system.includes("\"event_description\"")
    ? "event"
    : system.includes("\"scene_summary\":") && system.includes("\"temporal_flow\"")
    ? "scene"
    : system.includes("\"entities\": [") && system.includes("\"aliases\"")
    ? "registry"
    : undefined

const stopWords = new Set([
  "the",
  "and",
  "you",
  "for",
  "with",
  "that",
  "this",
  "are",
  "was",
  "now",
  "then",
  "here",
  "its",
  "our",
  "your",
  "from",
  "into",
  "they",
  "have",
  "has",
  "one",
  "two"
])

/** Distinct content words of a text, in order of first use. */
export const contentWords = (text: string, limit: number): ReadonlyArray<string> => {
  const seen: Array<string> = []
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    if (!stopWords.has(word) && !seen.includes(word)) seen.push(word)
    if (seen.length >= limit) break
  }
  return seen
}

interface Cue {
  readonly start: number
  readonly end: number
  readonly text: string
}

const parseCues = (block: string): ReadonlyArray<Cue> =>
  [...block.matchAll(/^\[(\d+(?:\.\d+)?)–(\d+(?:\.\d+)?) s\] (.*)$/gm)].map((m) => ({
    start: Number(m[1]),
    end: Number(m[2]),
    text: m[3]!
  }))

/** The reply to an event call: one frame card per `N. t=… s` line, each carrying the speech nearest its time. */
export const eventReply = (text: string): string => {
  const header = /^Event (\d+) of \d+: ([\d.]+) s – ([\d.]+) s$/m.exec(text)
  const times = [...text.matchAll(/^\d+\. t=([\d.]+) s$/gm)].map((m) => Number(m[1]))
  const subtitles = text.split(/^Subtitles:$/m)[1] ?? ""
  const cues = parseCues(subtitles)
  const speech = cues.map((cue) => cue.text).join(" ")
  const words = contentWords(speech, 8)
  const span = header === null ? "" : ` from ${header[2]} s to ${header[3]} s`
  const spoken = speech === "" ? "Nothing is said." : `Someone says: "${speech.slice(0, 300)}".`
  const nearest = (time: number) =>
    cues.reduce<Cue | undefined>(
      (best, cue) =>
        best === undefined || Math.abs((cue.start + cue.end) / 2 - time) < Math.abs((best.start + best.end) / 2 - time)
          ? cue
          : best,
      undefined
    )
  return JSON.stringify({
    event: {
      event_description: `Event ${header?.[1] ?? "?"} of the video${span}. ${spoken}`,
      entities: words.slice(0, 4),
      actions: speech === "" ? [] : ["speaking"],
      action_subjects: speech === "" ? [] : ["a speaker"],
      spatial_relations: "",
      state_changes: "",
      visible_text: times.map((time) => `${time.toFixed(1)} s`)
    },
    frames: times.map((time) => {
      const cue = nearest(time)
      return {
        frame_summary: `A frame at ${time.toFixed(1)} s${
          cue === undefined ? "." : ` while someone says "${cue.text}".`
        }`,
        visible_entities: cue === undefined ? [] : contentWords(cue.text, 3),
        ongoing_actions: cue === undefined ? [] : ["speaking"],
        spatial_layout: "",
        visual_attributes: {},
        visible_text: [`${time.toFixed(1)} s`]
      }
    })
  })
}

/** The reply to a scene call: the event descriptions joined, the keywords from their words. */
export const sceneReply = (text: string): string => {
  const header = /^Scene (\d+): ([\d.]+) s – ([\d.]+) s, (\d+) events$/m.exec(text)
  const descriptions = [...text.matchAll(/^Event \d+ \([^)]*\): (.*)$/gm)].map((m) => m[1]!)
  const words = contentWords(descriptions.join(" "), 10)
  return JSON.stringify({
    scene_summary: `Scene ${header?.[1] ?? "?"} (${header?.[2] ?? "?"}–${header?.[3] ?? "?"} s, ${
      header?.[4] ?? "?"
    } events). ${descriptions.join(" ").slice(0, 1200)}`,
    main_setting: "",
    key_entities: words.slice(0, 5),
    main_actions: descriptions.length > 0 ? ["speaking"] : [],
    topic_keywords: words.slice(5, 10),
    temporal_flow: descriptions.map((_, i) => `event ${i + 1}`).join(", then "),
    visible_text: []
  })
}

/**
 * The reply to a registry call: one entity per distinct item of the cards' `entities:` lines (case aside),
 * listing every node whose card names it.
 */
export const registryReply = (text: string): string => {
  const entities = new Map<string, { name: string; nodes: Array<string> }>()
  let node: string | undefined
  for (const line of text.split("\n")) {
    const header = /^(?:Scene|Event) (\S+) \(/.exec(line)
    if (header !== null) node = header[1]
    const named = /^ {2}entities: (.*)$/.exec(line)
    if (named === null || node === undefined) continue
    for (const name of named[1]!.split("; ").map((item) => item.trim()).filter((item) => item !== "")) {
      const entry = entities.get(name.toLowerCase()) ?? { name, nodes: [] }
      if (!entry.nodes.includes(node)) entry.nodes.push(node)
      entities.set(name.toLowerCase(), entry)
    }
  }
  return JSON.stringify({
    entities: [...entities.values()].map((entry) => ({
      name: entry.name,
      aliases: [],
      description: `Named in ${entry.nodes.length} cards.`,
      nodes: entry.nodes
    }))
  })
}

/** For `OpenAiSim.start({ intercept })`: answers build calls, leaves every other request to the scripts. */
export const answerBuildCalls = (request: SimRequest): ChatReply | undefined => {
  const messages = messagesOf(request)
  const system = textOf(messages.find((m) => m.role === "system")?.content)
  const kind = buildCallKind(system)
  if (kind === undefined) return undefined
  const user = textOf(messages.find((m) => m.role === "user")?.content)
  return { content: kind === "event" ? eventReply(user) : kind === "scene" ? sceneReply(user) : registryReply(user) }
}
