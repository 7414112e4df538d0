// The build queue port (`vtree build --db`): workers on many machines share a build's videos, one video at a
// time each, longest first, under a lease timed by the database's clock and a fence checked when a video is
// marked done. The records are domain/BuildRecord.ts's; the adapter is layers/sql/BuildQueueRepository.ts, on
// the run store's database. Failures are the run store's (`ClaimLost` when a video was taken over).
import { Context, type Effect, type Option } from "effect"
import type { BuildProgress, BuildRow, BuildSettings } from "../domain/BuildRecord.js"
import type { RunStoreError } from "./RunStore.js"

/** One video of a build's set: its id (its tree folder's name) and its length, which orders the queue. */
export interface QueuedVideo {
  readonly videoId: string
  readonly durationSeconds: number
}

/** A video held by a worker: `fence` is what its heartbeats and its "done" must carry. */
export interface VideoClaim {
  readonly videoId: string
  readonly fence: number
  /** Claimed before (by a worker that died, was stopped, or handed it back): its checkpoints are reused. */
  readonly resumed: boolean
}

export interface VideoClaimOutcome {
  readonly claim: Option.Option<VideoClaim>
  /** When nothing was claimable: open videos other workers hold under live leases (wait: their holder may die). */
  readonly heldByOthers: number
}

export interface BuildQueueShape {
  /**
   * Creates the build with its settings and video set, or, when it exists, returns it as stored (the caller
   * compares settings and set). Only the creator inserts the videos: a joining worker reads one row.
   */
  readonly joinBuild: (input: {
    readonly buildId: string
    readonly settings: BuildSettings
    readonly settingsHash: string
    readonly videosHash: string
    readonly videos: ReadonlyArray<QueuedVideo>
  }) => Effect.Effect<{ readonly build: BuildRow; readonly created: boolean }, RunStoreError>
  /**
   * Claims the longest open video nobody holds under a live lease (a lapsed lease is taken over), for
   * `leaseMs` of the database's clock. Two workers never get the same video.
   */
  readonly claimVideo: (
    buildId: string,
    ownerId: string,
    leaseMs: number
  ) => Effect.Effect<VideoClaimOutcome, RunStoreError>
  /** Heartbeat: extends the lease by `leaseMs`; `ClaimLost` when another worker claimed the video since. */
  readonly renewVideo: (
    buildId: string,
    ownerId: string,
    claim: VideoClaim,
    leaseMs: number
  ) => Effect.Effect<void, RunStoreError>
  /** Marks the video done (or failed, with the error), fenced: `ClaimLost`, and nothing written, unless still held. */
  readonly finishVideo: (
    buildId: string,
    ownerId: string,
    claim: VideoClaim,
    outcome: { readonly status: "done" } | { readonly status: "failed"; readonly error: string }
  ) => Effect.Effect<void, RunStoreError>
  /** Hands the video back (Ctrl-C, SIGTERM, a failure that is not the video's): claimable again at once. */
  readonly releaseVideo: (buildId: string, ownerId: string, claim: VideoClaim) => Effect.Effect<void, RunStoreError>
  /** The build's progress, or none when there is no such build. */
  readonly progress: (buildId: string) => Effect.Effect<Option.Option<BuildProgress>, RunStoreError>
  /** Every build's progress, newest first; none in a database written before builds were queued. */
  readonly listBuilds: Effect.Effect<ReadonlyArray<BuildProgress>, RunStoreError>
}

export class BuildQueue extends Context.Tag("vtree/BuildQueue")<BuildQueue, BuildQueueShape>() {}
