/**
 * What a build is given and what it reports: the inputs, the options, the events an app can draw
 * progress from, and the summary of each video. Shared by the builder's parts; `BuildTree.ts` is the
 * entry point that re-exports them.
 */
import type { Effect } from "effect"
import type { Prices } from "../../domain/Cost.js"
import type { DamagedSpan, SubtitleCue } from "../../domain/Media.js"
import type { RoleCosts } from "./BuildCost.js"
import type { BuildError } from "./BuildError.js"
import type { BuildPrompts } from "./BuildPrompts.js"
import type { ProbedVideo } from "./Inputs.js"
import type { BuildParameters } from "./Plan.js"

/** Reply budgets: a card per frame plus the event card fits well under these. */
export const eventMaxTokens = 4096
export const sceneMaxTokens = 2048
export const defaultBuildConcurrency = 16

export interface LoadedSubtitles {
  /** Where the cues come from, for the build record: "sidecar:x.srt", "embedded:x.mp4#2", "asr", "none". */
  readonly source: string
  readonly cues: ReadonlyArray<SubtitleCue>
}

export interface BuildInput<R = never> extends ProbedVideo {
  /** Resolved by the caller (file, sidecar, stream, speech to text), run when the video is prepared; none → no subtitles. */
  readonly subtitles?: Effect.Effect<LoadedSubtitles, BuildError, R>
  /** tree.json's `domain` for this video (from a question file); `BuildOptions.domain` wins over it. */
  readonly domain?: string
  /** tree.json's `duration_category` (a benchmark's own band); absent → from the probed length. */
  readonly durationCategory?: "short" | "medium" | "long"
}

export type BuildEvent =
  | {
    readonly _tag: "VideoStarted"
    readonly videoId: string
    readonly index: number
    readonly total: number
    readonly events: number
    readonly frames: number
  }
  | {
    readonly _tag: "CallFinished"
    readonly videoId: string
    readonly kind: "event" | "scene" | "registry"
    /** Answered from a checkpoint: no model call. */
    readonly reused: boolean
    readonly calls: number
    readonly promptTokens: number
    readonly completionTokens: number
  }
  | { readonly _tag: "VideoFinished"; readonly summary: VideoSummary }

export interface BuildOptions {
  /** Trees go to `<outDir>/<videoID>/`; nothing is written outside it. */
  readonly outDir: string
  readonly parameters?: Partial<BuildParameters>
  readonly prompts: BuildPrompts
  /** Model names, as the provider Layers are configured: part of every checkpoint key. */
  readonly models: { readonly vlm: string; readonly llm: string }
  /** tree.json's `domain` for every video (`--domain`), over each input's own. */
  readonly domain?: string
  /** Drop checkpoints and cached frames first (of tree folders vtree made; others are refused anyway). */
  readonly force?: boolean
  /** Model calls in flight at once (the provider Layers cap it too); default 16. */
  readonly concurrency?: number
  readonly onEvent?: (event: BuildEvent) => Effect.Effect<void>
  /** Prices of the vision (`vlm`) and text (`tool`) roles: the build record's USD per role when given. */
  readonly prices?: Pick<Prices, "vlm" | "tool">
  /** Held under a build queue's lease (`vtree build --db`): a tree folder's lock another worker left is stale. */
  readonly leased?: boolean
}

export interface VideoSummary {
  readonly videoId: string
  readonly treeDir: string
  readonly durationSeconds: number
  /** Frames sampled on the grid, and how many of them the vision model saw. */
  readonly frames: number
  readonly framesSent: number
  readonly events: number
  readonly scenes: number
  /** Model calls made by this run (retries of unusable replies included), and calls answered from checkpoints. */
  readonly calls: { readonly vlm: number; readonly llm: number; readonly reused: number }
  readonly tokens: { readonly prompt: number; readonly completion: number }
  readonly degraded: { readonly events: number; readonly frames: number; readonly scenes: number }
  readonly embedded: boolean
  readonly wallSeconds: number
  /** Where its subtitles came from: file, questions, sidecar, dir, embedded, asr or none. */
  readonly subtitles: string
  /** Stretches without a picture, lost to damaged data (the tree has no frames there). */
  readonly damaged: ReadonlyArray<DamagedSpan>
  /** The tree's calls by role (reused ones included: what the tree cost), for the cost per hour of video. */
  readonly roles?: RoleCosts
}
