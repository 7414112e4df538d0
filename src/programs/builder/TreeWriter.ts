/**
 * The end of a video's build: the `build` record, then the frames, tree.json (atomically, through the
 * Schema it is read with) and the retrieval embeddings when an EmbeddingProvider is present, all
 * inside the claimed tree folder.
 */
import * as Path from "@effect/platform/Path"
import { Effect, Option } from "effect"
import { packageVersion } from "../../PackageRoot.js"
import type { EmbeddingProvider } from "../../services/EmbeddingProvider.js"
import { loadTreeEnvironment } from "../tree/TreeLoader.js"
import { type RoleCosts, roleRecord, speechFigures } from "./BuildCost.js"
import type { BuildOptions } from "./BuildOptions.js"
import type { EventResult } from "./Captioning.js"
import {
  type CheckpointUsage,
  type EventCheckpoint,
  type RegistryCheckpoint,
  type SceneCheckpoint,
  sha256,
  writeAtomically
} from "./Checkpoint.js"
import { frameTokens } from "./Estimate.js"
import type { BuildParameters } from "./Plan.js"
import type { PreparedVideo } from "./Preparation.js"
import { subtitleKind } from "./Subtitles.js"
import { type assembleTree, treeJsonBytes } from "./TreeAssembly.js"
import { confine, unwritable, writeFrames } from "./TreeFolder.js"

type Checkpoint = EventCheckpoint | SceneCheckpoint | RegistryCheckpoint

const sum = (items: ReadonlyArray<Checkpoint>, field: keyof CheckpointUsage) =>
  items.reduce((total, c) => total + c.usage[field], 0)

/**
 * The tree's calls by role, from its checkpoints (reused ones included): what the tree cost. Image tokens are
 * the frames each vision call sent (twice for a call asked again) at `frameTokens`; speech is one call per audio
 * chunk of a transcribed video (`speechUploadBytes`: the endpoint's limit).
 */
export const treeRoles = (input: {
  readonly video: PreparedVideo
  readonly parameters: BuildParameters
  readonly events: ReadonlyArray<EventResult>
  readonly text: ReadonlyArray<SceneCheckpoint | RegistryCheckpoint>
  readonly speechUploadBytes: number | undefined
}): RoleCosts => {
  const { events, video } = input
  const perImage = frameTokens(video.info.width, video.info.height, input.parameters)
  const vision = events.map((event) => event.checkpoint)
  const asr = subtitleKind(video.subtitleSource) === "asr"
  return {
    durationSeconds: video.info.durationSeconds,
    vision: {
      calls: sum(vision, "calls"),
      frames: events.reduce((total, event) => total + event.plan.frames.length, 0),
      promptTokens: sum(vision, "promptTokens"),
      imageTokens: events.reduce(
        (total, event) => total + event.checkpoint.usage.calls * event.plan.frames.length * perImage,
        0
      ),
      completionTokens: sum(vision, "completionTokens"),
      audioSeconds: 0
    },
    text: {
      calls: sum(input.text, "calls"),
      frames: 0,
      promptTokens: sum(input.text, "promptTokens"),
      imageTokens: 0,
      completionTokens: sum(input.text, "completionTokens"),
      audioSeconds: 0
    },
    speech: speechFigures(video.info.durationSeconds, asr ? input.speechUploadBytes : undefined)
  }
}

/**
 * The `build` record of tree.json. Everything in it derives from the inputs and the checkpoints (the
 * time is the newest card's), so a rerun that calls nothing writes the same bytes.
 */
export const buildRecord = (input: {
  readonly video: PreparedVideo
  readonly options: BuildOptions
  readonly parameters: BuildParameters
  readonly events: ReadonlyArray<EventResult>
  readonly scenes: ReadonlyArray<SceneCheckpoint>
  /** The entity registry's calls; none when the build writes no registry. */
  readonly registry?: ReadonlyArray<RegistryCheckpoint>
  /** The tree's calls by role (`treeRoles`). */
  readonly roles?: RoleCosts
  readonly embeddingModel: string | undefined
}) => {
  const { events, options, parameters: p, scenes, video } = input
  const registry = input.registry ?? []
  const checkpoints: ReadonlyArray<Checkpoint> = [...events.map((event) => event.checkpoint), ...scenes, ...registry]
  return {
    vtree_version: packageVersion(),
    created_at: checkpoints.map((c) => c.createdAt).sort().at(-1) ?? null,
    models: {
      vlm: options.models.vlm,
      llm: options.models.llm,
      ...(input.embeddingModel === undefined ? {} : { embedding: input.embeddingModel })
    },
    parameters: {
      frame_interval: p.frameInterval,
      frame_width: p.frameWidth,
      event_seconds: p.eventSeconds,
      scene_seconds: p.sceneSeconds,
      frames_per_call: p.framesPerCall,
      scenes: p.scenes
    },
    prompts: {
      event_sha256: sha256(options.prompts.event),
      scene_sha256: sha256(options.prompts.scene),
      ...(options.prompts.registry === undefined ? {} : { registry_sha256: sha256(options.prompts.registry) })
    },
    source: {
      file: video.path.split(/[\\/]/).pop() ?? video.path,
      size_bytes: video.info.sizeBytes,
      sha256: video.sourceSha256
    },
    subtitles: { source: video.subtitleSource, cues: video.cues.length },
    frames: {
      sampled: video.frames.length,
      sent: events.reduce((total, event) => total + event.plan.frames.length, 0)
    },
    calls: { vlm: sum(events.map((event) => event.checkpoint), "calls"), llm: sum([...scenes, ...registry], "calls") },
    tokens: { prompt: sum(checkpoints, "promptTokens"), completion: sum(checkpoints, "completionTokens") },
    ...(input.roles === undefined ? {} : { roles: roleRecord(input.roles, options.prices) }),
    degraded: {
      events: events.filter((event) => event.checkpoint.degraded).length,
      frames: events.reduce(
        (total, event) => total + event.checkpoint.frames.filter((frame) => frame["degraded"] === true).length,
        0
      ),
      scenes: scenes.filter((scene) => scene.degraded).length,
      ...(registry.length === 0 ? {} : { registry: registry.filter((part) => part.degraded).length })
    },
    ...(video.damaged.length === 0 ? {} : {
      damaged: video.damaged.map(({ decoder, end, messages, picture, start }) => ({
        start,
        end,
        picture,
        decoder,
        messages
      }))
    })
  }
}

/** Frames, then tree.json (atomically), then the retrieval embeddings when a provider is present. */
export const writeTree = Effect.fn("TreeWriter.writeTree")(function*(
  video: PreparedVideo,
  tree: ReturnType<typeof assembleTree>,
  embedding: Option.Option<EmbeddingProvider["Type"]>
) {
  const path = yield* Path.Path
  const { folder } = video
  yield* writeFrames(folder, tree.frameFiles)
  const file = yield* confine(folder.root, path.join(folder.dir, "tree.json"))
  yield* writeAtomically(file, treeJsonBytes(tree.tree)).pipe(Effect.mapError(unwritable(folder.dir)))
  if (Option.isNone(embedding)) return false
  return yield* loadTreeEnvironment(folder.dir).pipe(
    Effect.as(true),
    Effect.catchAll((error) =>
      Effect.logWarning(
        `${video.videoId}: tree written, retrieval embeddings not cached (${error.message}); vtree infer will embed it on load`
      ).pipe(
        Effect.as(false)
      )
    )
  )
})
