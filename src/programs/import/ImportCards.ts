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
  degraded: number
}

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
  const count = (reused: boolean, degraded: boolean, usage: CheckpointUsage) => {
    if (reused) counts.reused += 1
    else {
      counts.calls += usage.calls
      counts.promptTokens += usage.promptTokens
      counts.completionTokens += usage.completionTokens
    }
    if (degraded) counts.degraded += 1
  }
  const ask = (system: string, maxTokens: number) => (text: string) =>
    llm.chat({
      role: "tool",
      thinking: false,
      maxTokens,
      messages: [{ role: "system", content: system }, { role: "user", content: text }]
    })
  const events = scenes.flatMap((scene) => scene.events)
  const eventCards = yield* Effect.forEach(events, (event, i) =>
    Effect.gen(function*() {
      const text = importEventText(i, events.length, event, cuesIn(transcript, event.start, event.end))
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
        ask: ask(card.prompts.event, eventMaxTokens),
        decode: decodeEventCardReply,
        degrade: degradedEventCard,
        checkpoint: (event: Record<string, unknown>, fields): EventCheckpoint => ({
          kind: "event",
          ...fields,
          event,
          frames: []
        }),
        providerFailed: providerFailed(folder.videoId, `event ${i + 1} card`),
        save: (made) => writeCheckpoint(folder.dir, made).pipe(Effect.mapError(unwritable(folder.dir)))
      })
      count(reused, checkpoint.degraded, checkpoint.usage)
      return completeCard(2, checkpoint.event)
    }), { concurrency: 8 })
  let first = 0
  const sceneCards = yield* Effect.forEach(
    scenes.map((scene) => {
      const cards = eventCards.slice(first, first + scene.events.length)
      first += scene.events.length
      return { scene, cards }
    }),
    ({ cards, scene }, s) =>
      Effect.gen(function*() {
        const text = sceneText({
          index: s,
          start: scene.start,
          end: scene.end,
          events: scene.events.map((event, e) => ({
            start: event.start,
            end: event.end,
            card: cards[e]!,
            subtitle: subtitleFor(transcript, [event.start, event.end])
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
          ask: ask(card.prompts.scene, sceneMaxTokens),
          decode: decodeSceneReply,
          degrade: degradedSceneCard,
          checkpoint: (scene: Record<string, unknown>, fields): SceneCheckpoint => ({
            kind: "scene",
            ...fields,
            scene
          }),
          providerFailed: providerFailed(folder.videoId, `scene ${s + 1} card`),
          save: (made) => writeCheckpoint(folder.dir, made).pipe(Effect.mapError(unwritable(folder.dir)))
        })
        count(reused, checkpoint.degraded, checkpoint.usage)
        return completeCard(1, checkpoint.scene)
      }),
    { concurrency: 4 }
  )
  return { events: eventCards, scenes: sceneCards }
})
