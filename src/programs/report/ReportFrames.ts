// What an observe_frame step showed the vision model, for the html report: the step's node ids (its
// args), resolved against the run's trees (runs.config_json → treesDir) by the same rule observe_frame
// used (FrameSelection.ts), each frame with its node id, its time and its image — a thumbnail or a link
// (`report --frames`). A tree or frame that is gone since the run leaves a note, never a failed report.
import * as Path from "@effect/platform/Path"
import { Effect, Either, Schema } from "effect"
import { ObserveFrameArgs } from "../../domain/Protocol.js"
import type { StoredRunConfig } from "../../domain/RunConfig.js"
import type { TreeIndex } from "../../domain/TreeIndex.js"
import { videoTime } from "../../text/Format.js"
import { type FrameImage, frameImages, type FramesMode } from "../tree/FrameImages.js"
import { resolveFramePath } from "../tree/FramePath.js"
import { selectFrameNodes } from "../tree/FrameSelection.js"
import { makeTreeLibrary } from "../tree/TreeLibrary.js"
import { treeFolderOf } from "../tree/TreeLoader.js"
import { esc } from "./ReportMarkup.js"
import type { TrajectoryDecor } from "./ReportTrajectory.js"
import type { ReportInput } from "./Summary.js"

export interface StepFrame {
  readonly nodeId: string
  /** Seconds into the video. */
  readonly time: number
  /** Key into `ReportFrames.images`. */
  readonly image: string
}

export interface ReportFrames {
  /** By `stepKey(questionId, step)`: the frames the step sent, or why they cannot be shown. */
  readonly steps: ReadonlyMap<string, { readonly frames: ReadonlyArray<StepFrame>; readonly note: string | null }>
  /** Each frame file once, however many steps sent it. */
  readonly images: ReadonlyMap<string, FrameImage>
  /** The node ids of each video's tree, for links to the tree page. */
  readonly nodeIds: ReadonlyMap<string, ReadonlySet<string>>
}

export const stepKey = (questionId: string, step: number): string => `${questionId}\u0000${step}`

const decodeArgs = Schema.decodeUnknownEither(ObserveFrameArgs)

/** The trees folder a run was made with, as stored in its config. */
export const treesDirOf = (config: StoredRunConfig | undefined): string | null => config?.treesDir ?? null

/**
 * The frames of every observe_frame step of a run. `pageDir` is the folder the page is read from (links
 * are relative to it); `treesDir` overrides the run's stored one.
 */
export const reportFrames = Effect.fn("ReportFrames.load")(function*(
  input: ReportInput,
  options: { readonly mode: FramesMode; readonly pageDir: string; readonly treesDir?: string | null }
) {
  const treesDir = options.treesDir ?? treesDirOf(input.run.config)
  const videoOf = new Map(input.predictions.map((p) => [p.questionId, p.videoId]))
  const observed = input.steps.filter((s) => s.tool === "observe_frame")
  const videos = [...new Set(input.predictions.map((p) => p.videoId))]
  const trees = new Map<string, { readonly dir: string; readonly index: TreeIndex } | string>()
  if (treesDir !== null) {
    const library = yield* makeTreeLibrary()
    yield* Effect.forEach(videos, (video) =>
      treeFolderOf(treesDir, video).pipe(
        Effect.flatMap((dir) => Effect.scoped(library.open(dir))),
        Effect.match({
          onFailure: (error) => trees.set(video, `tree not shown: ${error.message}`),
          onSuccess: ({ dir, index }) => trees.set(video, { dir, index })
        })
      ), { concurrency: 8, discard: true })
  }
  const path = yield* Path.Path
  const steps = new Map<string, { frames: ReadonlyArray<StepFrame>; note: string | null }>()
  const files = new Set<string>()
  // Each file as a missing frame is named: relative to its tree's folder, never the local path.
  const shown = new Map<string, string>()
  for (const step of observed) {
    const video = videoOf.get(step.questionId)
    const tree = video === undefined ? undefined : trees.get(video)
    const key = stepKey(step.questionId, step.step)
    if (tree === undefined || typeof tree === "string") {
      steps.set(key, {
        frames: [],
        note: typeof tree === "string" ? tree : "frames not shown: the run records no trees folder"
      })
      continue
    }
    const args = decodeArgs(step.args)
    const selected = Either.isLeft(args)
      ? undefined
      : Either.getRight(selectFrameNodes(tree.index, args.right.node_ids))
    if (selected === undefined || selected._tag === "None") {
      // The step's output already says what was wrong with its ids.
      steps.set(key, { frames: [], note: null })
      continue
    }
    const resolved = yield* Effect.forEach(
      selected.value,
      (node) => Effect.either(resolveFramePath(tree.dir, tree.index, node))
    )
    const frames = selected.value.flatMap((node, i) => {
      const file = resolved[i]!
      if (file._tag === "Left") return []
      files.add(file.right)
      shown.set(file.right, path.relative(tree.dir, file.right))
      return [{ nodeId: node.id, time: node.timeRange[0], image: file.right }]
    })
    const refused = resolved.flatMap((file) => file._tag === "Left" ? [`frame not shown: ${file.left.message}`] : [])
    steps.set(key, { frames, note: refused.length === 0 ? null : refused.join("; ") })
  }
  const images = yield* frameImages(files, {
    mode: options.mode,
    pageDir: options.pageDir,
    shown: (file) => shown.get(file) ?? path.basename(file)
  })
  const nodeIds = new Map<string, ReadonlySet<string>>()
  for (const [video, tree] of trees) if (typeof tree !== "string") nodeIds.set(video, new Set(tree.index.nodes.keys()))
  return { steps, images, nodeIds } satisfies ReportFrames
}, Effect.scoped)

// Node ids as the tree builder writes them (`<videoID>_L1_000_L2_001_L3_002`), in escaped text: the
// characters escaping introduces (& ; #) and separators end an id, and only ids of the question's own
// tree become links.
const nodeIdPattern = /[^\s"'<>&;,:|()[\]{}#]+_L1_\d+(?:_L2_\d+(?:_L3_\d+)?)?/gu

/**
 * The markup of a run's frames: `decorFor(videoId)` gives a trajectory its frame thumbnails and node id
 * links (to `treePage#<id>`, when a tree page is given), and `store` holds each embedded thumbnail once,
 * as the text of an inert script element the page copies into an image when its trajectory is opened.
 */
export const frameMarkup = (frames: ReportFrames, treePage: string | null) => {
  const embedded = new Map<string, number>()
  const store: Array<string> = []
  for (const [file, image] of frames.images) {
    if (image._tag !== "Embedded") continue
    embedded.set(file, embedded.size)
    store.push(
      `<script type="text/plain" id="frame-${embedded.size - 1}">${
        image.src.slice("data:image/jpeg;base64,".length)
      }</script>`
    )
  }
  const link = (videoId: string, id: string, text: string) =>
    treePage !== null && frames.nodeIds.get(videoId)?.has(id) === true
      ? `<a href="${esc(`${treePage}#${encodeURIComponent(id)}`)}">${text}</a>`
      : text
  const figure = (videoId: string, frame: StepFrame) => {
    const image = frames.images.get(frame.image)
    const alt = esc(`frame ${frame.nodeId} at ${videoTime(frame.time)}`)
    const picture = image === undefined || image._tag === "Missing"
      ? `<div class="nofile">${esc(image?.message ?? "frame not shown")}</div>`
      : image._tag === "Embedded"
      ? `<img data-frame="${embedded.get(frame.image)}" width="${image.width}" height="${image.height}" alt="${alt}">`
      : `<img src="${esc(image.src)}" alt="${alt}" loading="lazy">`
    return `<figure class="frame">${picture}<figcaption>${link(videoId, frame.nodeId, esc(frame.nodeId))} · ${
      esc(videoTime(frame.time))
    }</figcaption></figure>`
  }
  const decorFor = (videoId: string): TrajectoryDecor => ({
    stepFrames: (step) => {
      const shown = frames.steps.get(stepKey(step.questionId, step.step))
      if (shown === undefined) return ""
      return (shown.note === null ? "" : `<p class="muted">${esc(shown.note)}</p>`) +
        (shown.frames.length === 0
          ? ""
          : `<p><b>Frames sent</b></p><div class="frames">${
            shown.frames.map((f) => figure(videoId, f)).join("")
          }</div>`)
    },
    linkIds: (escaped) => treePage === null ? escaped : escaped.replace(nodeIdPattern, (id) => link(videoId, id, id))
  })
  return { decorFor, store: store.join("\n") }
}
