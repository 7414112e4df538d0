/**
 * Event and scene cards of an imported tree written by the tool model: one text call per event (its
 * captions and subtitles → the L2 card) and one per scene (its event cards → the L1 card, the
 * builder's own scene call), each asked at most twice and checkpointed in the tree's `.vtree/` the
 * way `vtree build` does, so a rerun asks nothing twice.
 */
import * as Path from "@effect/platform/Path"
import { Effect } from "effect"
import type { SubtitleCue } from "../../domain/Media.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import type { LLMProvider } from "../../services/LLMProvider.js"
import { eventMaxTokens, sceneMaxTokens } from "../builder/BuildOptions.js"
import {
  type Card,
  completeCard,
  cueLines,
  decodeEventCardReply,
  decodeSceneReply,
  degradedEventCard,
  degradedSceneCard,
  sceneText
} from "../builder/Cards.js"
import {
  checkpointDir,
  checkpointedCall,
  checkpointKey,
  type CheckpointUsage,
  type EventCheckpoint,
  readEventCheckpoint,
  readSceneCheckpoint,
  type SceneCheckpoint,
  writeCheckpoint
} from "../builder/Checkpoint.js"
import { subtitleCallChars, subtitleFor } from "../builder/Subtitles.js"
import { cuesIn } from "../builder/TreeAssembly.js"
import { confine, type TreeFolder, unwritable } from "../builder/TreeFolder.js"
import { captionLines, type ImportedEvent, type ImportedScene } from "./Grouping.js"
import { TreeImportError } from "./ImportedVideo.js"

/** The tool model and the system prompts of the two calls. */
export interface ImportCardModel {
  readonly model: string
  readonly prompts: { readonly event: string; readonly scene: string }
}

export interface CardCounts {
  calls: number
  reused: number
  promptTokens: number
  completionTokens: number
  /** Cards kept from a reply unusable twice (marked `degraded`), reused ones included: they are in the tree. */
  degraded: { events: number; scenes: number }
}

export const emptyCardCounts = (): CardCounts => ({
  calls: 0,
  reused: 0,
  promptTokens: 0,
  completionTokens: 0,
  degraded: { events: 0, scenes: 0 }
})

const seconds = (t: number) => `${(Math.round(t * 10) / 10).toFixed(1)} s`

/** The user text of an event call: its span, captions and subtitles. */
export const importEventText = (
  index: number,
  total: number,
  event: ImportedEvent,
  cues: ReadonlyArray<SubtitleCue>
): string =>
  [
    `Event ${index + 1} of ${total}: ${seconds(event.start)} – ${seconds(event.end)}`,
    "Captions:",
    captionLines(event.captions),
    "Subtitles:",
    cueLines(cues, subtitleCallChars(event.end - event.start))
  ].join("\n")

const providerFailed = (videoId: string, what: string) => (error: ProviderError) =>
  new TreeImportError({
    reason: "ProviderFailed",
    message: `${videoId}: ${what}: ${
      error.message.split("\n")[0]
    } — finished cards are saved; fix the endpoint and run the same import again to resume`
  })

/** What every card call of one video shares. */
interface CardCalls {
  readonly llm: LLMProvider["Type"]
  readonly card: ImportCardModel
  readonly folder: TreeFolder
  readonly transcript: ReadonlyArray<SubtitleCue>
  readonly counts: CardCounts
}

const countCall = (
  counts: CardCounts,
  kind: "events" | "scenes",
  reused: boolean,
  degraded: boolean,
  usage: CheckpointUsage
): void => {
  if (reused) counts.reused += 1
  else {
    counts.calls += usage.calls
    counts.promptTokens += usage.promptTokens
    counts.completionTokens += usage.completionTokens
  }
  if (degraded) counts.degraded[kind] += 1
}

const askToolModel = (llm: LLMProvider["Type"], system: string, maxTokens: number) => (text: string) =>
  llm.chat({
    role: "tool",
    thinking: false,
    maxTokens,
    messages: [{ role: "system", content: system }, { role: "user", content: text }]
  })

const saveIn = (folder: TreeFolder) => (made: EventCheckpoint | SceneCheckpoint) =>
  writeCheckpoint(folder.dir, made).pipe(Effect.mapError(unwritable(folder.dir)))

/** The L2 card of event `index` of `total`, from its checkpoint or the model. */
const eventCard = (calls: CardCalls, event: ImportedEvent, index: number, total: number) =>
  Effect.gen(function*() {
    const { card, folder } = calls
    const text = importEventText(index, total, event, cuesIn(calls.transcript, event.start, event.end))
    const key = checkpointKey({
      kind: "event",
      model: card.model,
      prompt: card.prompts.event,
      text,
      images: [],
      parameters: { maxTokens: eventMaxTokens, from: "captions" }
    })
    const { checkpoint, reused } = yield* checkpointedCall({
      treeDir: folder.dir,
      key,
      read: readEventCheckpoint,
      text,
      ask: askToolModel(calls.llm, card.prompts.event, eventMaxTokens),
      decode: decodeEventCardReply,
      degrade: degradedEventCard,
      checkpoint: (event: Record<string, unknown>, fields): EventCheckpoint => ({
        kind: "event",
        ...fields,
        event,
        frames: []
      }),
      providerFailed: providerFailed(folder.videoId, `event ${index + 1} card`),
      save: saveIn(folder)
    })
    countCall(calls.counts, "events", reused, checkpoint.degraded, checkpoint.usage)
    return completeCard(2, checkpoint.event)
  })

/** The L1 card of scene `index`, from its checkpoint or the model given its events' cards. */
const sceneCard = (calls: CardCalls, scene: ImportedScene, cards: ReadonlyArray<Card>, index: number) =>
  Effect.gen(function*() {
    const { card, folder } = calls
    const text = sceneText({
      index,
      start: scene.start,
      end: scene.end,
      events: scene.events.map((event, e) => ({
        start: event.start,
        end: event.end,
        card: cards[e]!,
        subtitle: subtitleFor(calls.transcript, [event.start, event.end])
      }))
    })
    const key = checkpointKey({
      kind: "scene",
      model: card.model,
      prompt: card.prompts.scene,
      text,
      images: [],
      parameters: { maxTokens: sceneMaxTokens }
    })
    const { checkpoint, reused } = yield* checkpointedCall({
      treeDir: folder.dir,
      key,
      read: readSceneCheckpoint,
      text,
      ask: askToolModel(calls.llm, card.prompts.scene, sceneMaxTokens),
      decode: decodeSceneReply,
      degrade: degradedSceneCard,
      checkpoint: (scene: Record<string, unknown>, fields): SceneCheckpoint => ({
        kind: "scene",
        ...fields,
        scene
      }),
      providerFailed: providerFailed(folder.videoId, `scene ${index + 1} card`),
      save: saveIn(folder)
    })
    countCall(calls.counts, "scenes", reused, checkpoint.degraded, checkpoint.usage)
    return completeCard(1, checkpoint.scene)
  })

/** Each scene with the cards of its own events, cut from the cards of all events in order. */
const withEventCards = <C>(scenes: ReadonlyArray<ImportedScene>, eventCards: ReadonlyArray<C>) => {
  let first = 0
  return scenes.map((scene) => {
    const cards = eventCards.slice(first, first + scene.events.length)
    first += scene.events.length
    return { scene, cards }
  })
}

/** The cards of one video's events and scenes, from checkpoints or the model. */
export const modelCards = Effect.fn("ImportCards.modelCards")(function*(
  llm: LLMProvider["Type"],
  card: ImportCardModel,
  folder: TreeFolder,
  scenes: ReadonlyArray<ImportedScene>,
  transcript: ReadonlyArray<SubtitleCue>,
  counts: CardCounts
) {
  const path = yield* Path.Path
  yield* confine(folder.root, checkpointDir(path, folder.dir))
  const calls: CardCalls = { llm, card, folder, transcript, counts }
  const events = scenes.flatMap((scene) => scene.events)
  const eventCards = yield* Effect.forEach(
    events,
    (event, i) => eventCard(calls, event, i, events.length),
    { concurrency: 8 }
  )
  const sceneCards = yield* Effect.forEach(
    withEventCards(scenes, eventCards),
    ({ cards, scene }, s) => sceneCard(calls, scene, cards, s),
    { concurrency: 4 }
  )
  return { events: eventCards, scenes: sceneCards }
})
