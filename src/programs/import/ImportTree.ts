/**
 * `vtree tree import`: released caption sets → trees `vtree infer` reads. Per video: the
 * captions grouped by time (Grouping.ts), event and scene cards from the tool model when one is given
 * (ImportCards.ts, checkpointed) or else deterministic, subtitles from a transcript, the entity
 * registry, and with --videos one frame per L3 node; tree.json written atomically through the Schema
 * it is read with, its `build` record naming the source file, its sha256 and its layout. Every tree
 * folder is checked before anything is written, as `vtree build` does, and a tree `vtree build` made is
 * replaced only with `force`; every output bound (ImportLimits.ts) is checked before the tree is written.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option } from "effect"
import type { MediaError } from "../../domain/Media.js"
import { plainNameProblem } from "../../domain/NameId.js"
import type { BuiltTree, FlatNode } from "../../domain/Tree.js"
import { packageVersion } from "../../PackageRoot.js"
import { FrameSource } from "../../services/FrameSource.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import { MediaProbe } from "../../services/MediaProbe.js"
import { checkpointDir, writeAtomically } from "../builder/Checkpoint.js"
import { videoExtensions } from "../builder/Inputs.js"
import { durationCategory, eventId, frameFile, frameId, sceneId } from "../builder/NodeIds.js"
import { subtitleFor } from "../builder/Subtitles.js"
import { treeJsonBytes } from "../builder/TreeAssembly.js"
import {
  checkTreeFolder,
  type ClaimedFolder,
  claimTreeFolder,
  clearFrames,
  insideTree,
  outDirNames,
  removeInside,
  resolveOutDir,
  type TreeFolder,
  unwritable,
  writeFrames
} from "../builder/TreeFolder.js"
import {
  deterministicEventCard,
  deterministicSceneCard,
  frameCard,
  groupCaptions,
  type ImportedScene
} from "./Grouping.js"
import { type CardCounts, emptyCardCounts, type ImportCardModel, modelCards } from "./ImportCards.js"
import { badInput, type ImportFormat, TreeImportError } from "./ImportedVideo.js"
import { type ImportLimits, importLimits } from "./ImportLimits.js"
import { importedBy, refuseBuiltTree } from "./ImportOverwrite.js"
import { readCaptionSources, type SourcedVideo } from "./ImportSources.js"

export interface ImportOptions {
  readonly outDir: string
  /** Forces the layout; otherwise it is read from each file's content. */
  readonly from?: ImportFormat
  /** A folder of the source videos (`<video id>.<ext>`): frames for observe_frame, frame rates. */
  readonly videosDir?: string
  /** Frame rate of frame-indexed layouts (videoagent-memory); else probed from --videos. */
  readonly fps?: number
  /** L2 event grid, seconds (default 20). */
  readonly eventSeconds: number
  /** L1 scene grid, seconds (default 300). */
  readonly sceneSeconds: number
  /** The tool model writing event and scene cards; undefined → deterministic cards, no call. */
  readonly cards?: ImportCardModel
  /** Replace a tree `vtree build` made (its vision-model cards and frames); without it that is refused. */
  readonly force?: boolean
  /** Lower output bounds than `importLimits` (tests; a smaller machine). */
  readonly limits?: Partial<Pick<ImportLimits, "videosPerFile" | "nodesPerTree" | "treeJsonBytes">>
}

export interface ImportSummary {
  readonly videoId: string
  readonly treeDir: string
  readonly format: ImportFormat
  readonly captions: number
  readonly events: number
  readonly scenes: number
  /** Frames extracted, or null without --videos. */
  readonly frames: number | null
  readonly cards: "model" | "deterministic"
  readonly calls: number
  /** Cards answered from checkpoints of an earlier import: no call. */
  readonly reused: number
  /** Model cards kept from a reply unusable twice (marked `degraded`); none for deterministic cards. */
  readonly degraded: { readonly events: number; readonly scenes: number }
}

/** Frames are sampled this often (seconds); each L3 node takes the one nearest its middle. */
const frameGridSeconds = 1
/** Where --videos' frames are extracted to, inside the tree folder; frames/ links to them. */
const importFramesDir = ".vtree/import-frames"
const frameWidth = 640

const badOption = (message: string) => new TreeImportError({ reason: "BadOption", message })

/** A one-line problem with the grid flags, or undefined. */
export const checkImportOptions = (options: ImportOptions): string | undefined => {
  if (!(Number.isFinite(options.eventSeconds) && options.eventSeconds > 0)) {
    return `--event-seconds ${options.eventSeconds}: expected a number of seconds > 0`
  }
  if (!(Number.isFinite(options.sceneSeconds) && options.sceneSeconds >= options.eventSeconds)) {
    return `--scene-seconds ${options.sceneSeconds}: expected a number of seconds ≥ --event-seconds (${options.eventSeconds})`
  }
  if (options.fps !== undefined && !(Number.isFinite(options.fps) && options.fps > 0)) {
    return `--fps ${options.fps}: expected frames per second > 0`
  }
  return undefined
}

const mediaFailed = (error: MediaError) => new TreeImportError({ reason: "BadInput", message: error.message })

/**
 * `<videosDir>/<id>.<ext>` for the first video extension present, or undefined. The id is a key of the
 * caption file: only a plain name (as a video id must be) is looked up, so `../x` reads nothing outside.
 */
const findVideo = Effect.fn("ImportTree.findVideo")(function*(videosDir: string, sourceId: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const problem = plainNameProblem(sourceId)
  if (problem !== undefined) {
    return yield* new TreeImportError({
      reason: "BadInput",
      message: `${JSON.stringify(sourceId)}: a video id that ${problem} names no file in --videos ${videosDir} — ` +
        "rename the key to the video's file name, or import without --videos"
    })
  }
  for (const ext of videoExtensions) {
    const file = path.join(videosDir, `${sourceId}${ext}`)
    if (yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false))) return file
  }
  return undefined
})

const noVideo = (videosDir: string, sourceId: string) =>
  new TreeImportError({
    reason: "BadInput",
    message: `${videosDir}: no video file for "${sourceId}" (looked for ${sourceId}${
      [...videoExtensions].join(`, ${sourceId}`)
    }) — add it, or import without --videos (the tree then has no frames)`
  })

/** The index of the time in `times` (sorted) nearest `t`. */
export const nearestIndex = (times: ReadonlyArray<number>, t: number): number => {
  let low = 0
  let high = times.length - 1
  while (low < high) {
    const middle = (low + high) >> 1
    if (times[middle]! < t) low = middle + 1
    else high = middle
  }
  return low > 0 && Math.abs(times[low - 1]! - t) <= Math.abs(times[low]! - t) ? low - 1 : low
}

/** Frames sampled from a video on the import grid. */
type SampledFrames = ReadonlyArray<{ readonly timeSeconds: number; readonly path: string }>

/** The cards of a video's events and scenes: the tool model's when one is given and available, else deterministic. */
const importCards = (
  video: SourcedVideo,
  folder: TreeFolder,
  scenes: ReadonlyArray<ImportedScene>,
  options: ImportOptions,
  counts: CardCounts
) =>
  Effect.gen(function*() {
    const llm = yield* Effect.serviceOption(LLMProvider)
    const useModel = options.cards !== undefined && Option.isSome(llm)
    const cards = useModel
      ? yield* modelCards(llm.value, options.cards!, folder, scenes, video.transcript, counts)
      : {
        events: scenes.flatMap((scene) => scene.events.map(deterministicEventCard)),
        scenes: scenes.map(deterministicSceneCard)
      }
    return { useModel, cards }
  })

/** With --videos: frames sampled once on a one-second grid into the tree folder; without, undefined. */
const sampleFrames = (video: SourcedVideo, claimed: ClaimedFolder, options: ImportOptions) =>
  Effect.gen(function*() {
    if (options.videosDir === undefined) return undefined
    const frames = yield* Effect.serviceOption(FrameSource)
    if (Option.isNone(frames)) return yield* badOption("--videos: no frame extractor is available")
    const file = yield* findVideo(options.videosDir, video.sourceId)
    if (file === undefined) return yield* noVideo(options.videosDir, video.sourceId)
    const outDir = yield* insideTree(claimed, importFramesDir)
    const extraction = yield* frames.value.extract({
      path: file,
      intervalSeconds: frameGridSeconds,
      width: frameWidth,
      outDir
    })
      .pipe(Effect.mapError(mediaFailed))
    if (extraction.frames.length === 0) {
      return yield* new TreeImportError({
        reason: "BadInput",
        message: `${file}: no frame could be decoded — check the video, or import without --videos`
      })
    }
    const sampled: SampledFrames = extraction.frames
    return sampled
  })

/**
 * The tree's nodes (scenes, events, one L3 node per caption) and, with sampled frames, the one nearest
 * each L3 node's middle as its frame file.
 */
const importedNodes = (
  video: SourcedVideo,
  scenes: ReadonlyArray<ImportedScene>,
  cards: { readonly events: ReadonlyArray<FlatNode["card"]>; readonly scenes: ReadonlyArray<FlatNode["card"]> },
  sampled: SampledFrames | undefined
) => {
  const frameTimes = sampled?.map((frame) => frame.timeSeconds) ?? []
  const nodes: Record<string, FlatNode> = {}
  const frameFiles: Array<{ target: string; source: string }> = []
  const subtitle = (start: number, end: number) => subtitleFor(video.transcript, [start, end])
  let eventIndex = 0
  scenes.forEach((scene, s) => {
    const sid = sceneId(video.videoId, s)
    nodes[sid] = {
      level: 1,
      time_range: [scene.start, scene.end],
      card: cards.scenes[s]!,
      subtitle: subtitle(scene.start, scene.end),
      children_ids: scene.events.map((_, e) => eventId(video.videoId, s, e))
    }
    scene.events.forEach((event, e) => {
      const eid = eventId(video.videoId, s, e)
      nodes[eid] = {
        level: 2,
        time_range: [event.start, event.end],
        card: cards.events[eventIndex++]!,
        subtitle: subtitle(event.start, event.end),
        children_ids: event.captions.map((c, f) => frameId(video.videoId, s, e, c.clip ?? f))
      }
      event.captions.forEach((c, f) => {
        const fid = frameId(video.videoId, s, e, c.clip ?? f)
        nodes[fid] = {
          level: 3,
          time_range: [c.start, c.end],
          card: frameCard(c),
          subtitle: subtitle(c.start, c.end),
          children_ids: []
        }
        if (sampled !== undefined) {
          frameFiles.push({
            target: frameFile(video.videoId, fid),
            source: sampled[nearestIndex(frameTimes, (c.start + c.end) / 2)]!.path
          })
        }
      })
    })
  })
  return { nodes, frameFiles, events: eventIndex }
}

/** The tree.json of an imported video; everything here derives from the inputs, so a rerun writes the same bytes. */
const importedTree = (input: {
  readonly video: SourcedVideo
  readonly options: ImportOptions
  readonly version: string
  readonly nodes: Record<string, FlatNode>
  readonly model: { readonly name: string; readonly counts: CardCounts } | undefined
  readonly framesExtracted: number | undefined
  readonly path: Path.Path
}): BuiltTree => {
  const { model, options, path, video } = input
  const lastEnd = video.captions.reduce((end, c) => Math.max(end, c.end), 0)
  const duration = Math.max(video.durationSeconds ?? 0, lastEnd)
  return {
    videoID: video.videoId,
    duration_category: durationCategory(duration),
    duration_seconds: Math.round(duration * 1000) / 1000,
    ...(video.entities.length === 0 ? {} : { entities: video.entities }),
    ...(input.framesExtracted === undefined ? { has_frames: false } : {}),
    build: {
      vtree_version: input.version,
      made_by: importedBy,
      source: {
        file: path.basename(video.file),
        sha256: video.sha256,
        format: video.format,
        ...(video.sourceId === video.videoId ? {} : { video_id: video.sourceId })
      },
      parameters: {
        event_seconds: options.eventSeconds,
        scene_seconds: options.sceneSeconds,
        ...(options.fps === undefined ? {} : { fps: options.fps })
      },
      captions: video.captions.length,
      subtitles: { cues: video.transcript.length },
      cards: model !== undefined
        ? {
          written_by: "model",
          model: model.name,
          calls: model.counts.calls,
          tokens: { prompt: model.counts.promptTokens, completion: model.counts.completionTokens },
          degraded: { ...model.counts.degraded }
        }
        : { written_by: "deterministic (captions joined, no model)" },
      frames: input.framesExtracted === undefined
        ? { extracted: 0 }
        : { extracted: input.framesExtracted, from: path.basename(options.videosDir!) }
    },
    nodes: input.nodes
  }
}

/**
 * Frames go in before the tree.json naming them, and go out after the tree.json saying there are none:
 * stopped at any point, the folder holds a tree whose frames are all there.
 */
const writeImportedTree = (
  folder: TreeFolder,
  claimed: ClaimedFolder,
  tree: BuiltTree,
  frameFiles: ReadonlyArray<{ readonly target: string; readonly source: string }>,
  hasFrames: boolean,
  maxBytes: number
) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const bytes = treeJsonBytes(tree)
    if (bytes.length > maxBytes) return yield* tooLarge(folder.dir, `${sizeText(bytes.length)}`, maxBytes)
    if (frameFiles.length > 0) yield* writeFrames(folder, frameFiles)
    const file = yield* insideTree(claimed, "tree.json")
    yield* writeAtomically(file, bytes).pipe(Effect.mapError(unwritable(folder.dir)))
    if (!hasFrames && !claimed.made) {
      yield* clearFrames(folder)
      yield* removeInside(folder.root, path.join(folder.dir, importFramesDir))
    }
  })

const mib = 1024 * 1024
const sizeText = (bytes: number) =>
  bytes >= mib ? `${(bytes / mib).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`

const tooLarge = (treeDir: string, size: string, maxBytes: number) =>
  new TreeImportError({
    reason: "BadInput",
    message: `${treeDir}: its tree.json would be ${size}, more than the ${
      sizeText(maxBytes)
    } vtree reads a tree up to — split the video's captions into several videos (or files), or use fewer, shorter captions`
  })

/**
 * What the claim of a video's folder added, removed when its import fails or is interrupted before its
 * tree.json is written, so no empty claimed folder is left: the folder when this run made it, else the
 * `.vtree/` it made in a folder that was there before. Checkpoints (the model's cards, which a rerun
 * resumes from) are kept, and so is everything when a tree.json is there.
 */
const removeUnfinished = (claimed: ClaimedFolder, hadCache: boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (!claimed.made && hadCache) return
    if (yield* fs.exists(path.join(claimed.dir, "tree.json"))) return
    const checkpoints = yield* fs.readDirectory(checkpointDir(path, claimed.dir)).pipe(Effect.orElseSucceed(() => []))
    if (checkpoints.length > 0) return
    yield* removeInside(claimed.root, claimed.made ? claimed.dir : path.join(claimed.dir, ".vtree"))
  }).pipe(Effect.ignore)

/** One video's tree, written into its (checked) folder; `version` is vtree's, read once per run. */
const importVideo = Effect.fn("ImportTree.importVideo")(function*(
  video: SourcedVideo,
  scenes: ReadonlyArray<ImportedScene>,
  folder: TreeFolder,
  options: ImportOptions,
  version: string
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const hadCache = !folder.fresh && (yield* fs.exists(path.join(folder.dir, ".vtree")).pipe(
    Effect.orElseSucceed(() => true)
  ))
  // Claimed and watched in one step: an interruption cannot fall between the two.
  return yield* Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      claimTreeFolder(folder, importedBy),
      (claimed) =>
        restore(writeVideo(video, scenes, folder, claimed, options, version)).pipe(
          Effect.onError(() => removeUnfinished(claimed, hadCache))
        )
    )
  )
})

const writeVideo = (
  video: SourcedVideo,
  scenes: ReadonlyArray<ImportedScene>,
  folder: TreeFolder,
  claimed: ClaimedFolder,
  options: ImportOptions,
  version: string
) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const counts = emptyCardCounts()
    const { cards, useModel } = yield* importCards(video, folder, scenes, options, counts)
    const sampled = yield* sampleFrames(video, claimed, options)
    const { events, frameFiles, nodes } = importedNodes(video, scenes, cards, sampled)
    const tree = importedTree({
      video,
      options,
      version,
      nodes,
      model: useModel ? { name: options.cards!.model, counts } : undefined,
      framesExtracted: sampled === undefined ? undefined : frameFiles.length,
      path
    })
    yield* writeImportedTree(
      folder,
      claimed,
      tree,
      frameFiles,
      sampled !== undefined,
      options.limits?.treeJsonBytes ?? importLimits.treeJsonBytes
    )
    return {
      videoId: video.videoId,
      treeDir: path.join(options.outDir, video.videoId),
      format: video.format,
      captions: video.captions.length,
      events,
      scenes: scenes.length,
      frames: sampled === undefined ? null : frameFiles.length,
      cards: useModel ? "model" : "deterministic",
      calls: counts.calls,
      reused: counts.reused,
      degraded: { ...counts.degraded }
    } satisfies ImportSummary
  })

/**
 * A video's scenes, refused before anything is written when its tree would pass the node bound, or when its
 * caption text alone would pass the tree.json bound (every caption is written at least once).
 */
const boundedScenes = (video: SourcedVideo, options: ImportOptions) =>
  Effect.gen(function*() {
    const maxNodes = options.limits?.nodesPerTree ?? importLimits.nodesPerTree
    const maxBytes = options.limits?.treeJsonBytes ?? importLimits.treeJsonBytes
    const fix = "split the video's captions into several videos (or files), or group them on a longer grid"
    // Captions alone past the bound: refused before grouping allocates events for them.
    if (video.captions.length > maxNodes) {
      return yield* badInput(
        video.file,
        video.sourceId,
        `${video.captions.length} captions, more than the ${maxNodes} nodes vtree writes in one tree`,
        fix
      )
    }
    const scenes = groupCaptions(video.captions, options.eventSeconds, options.sceneSeconds)
    const nodes = video.captions.length + scenes.length +
      scenes.reduce((total, scene) => total + scene.events.length, 0)
    if (nodes > maxNodes) {
      return yield* badInput(
        video.file,
        video.sourceId,
        `${video.captions.length} captions make a tree of ${nodes} nodes, more than ${maxNodes} in one tree`,
        fix
      )
    }
    const textBytes = video.captions.reduce((total, c) => total + c.text.length, 0)
    if (textBytes > maxBytes) {
      return yield* tooLarge(video.videoId, `over ${sizeText(textBytes)} of caption text alone`, maxBytes)
    }
    return scenes
  })

/**
 * Imports every video of FILE or DIR into `<outDir>/<videoID>/`. All sources are read and every tree
 * folder checked before the first is written: a bad caption or a folder of someone else's stops the
 * import with nothing written.
 */
export const importTrees = Effect.fn("ImportTree.importTrees")(function*(input: string, options: ImportOptions) {
  const problem = checkImportOptions(options)
  if (problem !== undefined) return yield* badOption(problem)
  const probe = yield* Effect.serviceOption(MediaProbe)
  const frameRateOf = (sourceId: string) =>
    Effect.gen(function*() {
      if (options.videosDir === undefined || Option.isNone(probe)) return undefined
      const file = yield* findVideo(options.videosDir, sourceId).pipe(Effect.orElseSucceed(() => undefined))
      if (file === undefined) return undefined
      const info = yield* probe.value.probe(file).pipe(Effect.option)
      return Option.getOrUndefined(info)?.frameRate
    })
  const videos = yield* readCaptionSources(input, {
    ...(options.from === undefined ? {} : { from: options.from }),
    ...(options.fps === undefined ? {} : { fps: options.fps }),
    videosPerFile: options.limits?.videosPerFile ?? importLimits.videosPerFile,
    frameRateOf
  })
  if (options.videosDir !== undefined) {
    for (const video of videos) {
      if ((yield* findVideo(options.videosDir, video.sourceId)) === undefined) {
        return yield* noVideo(options.videosDir, video.sourceId)
      }
    }
  }
  const scenes = yield* Effect.forEach(videos, (video) => boundedScenes(video, options))
  // --out is resolved (and its own links followed) once; each tree folder is then one checked name below it.
  const root = yield* resolveOutDir(options.outDir)
  const names = yield* outDirNames(root)
  const folders = yield* Effect.forEach(videos, (video) =>
    checkTreeFolder(root, video.videoId, names).pipe(
      Effect.tap((folder) => folder.fresh || options.force === true ? Effect.void : refuseBuiltTree(folder))
    ), { concurrency: 16 })
  const version = packageVersion()
  // Without a model a tree is a little CPU and a few small writes: enough in flight to keep the disk busy.
  return yield* Effect.forEach(videos, (video, i) => importVideo(video, scenes[i]!, folders[i]!, options, version), {
    concurrency: options.cards === undefined ? 16 : 2
  })
})
