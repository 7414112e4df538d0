/**
 * One worker of a queued build (`vtree build --db`): joins the build (refused when its settings or video set
 * differ), then claims one video at a time from the store, longest first, builds it under a lease it renews
 * (heartbeat), and marks it done, fenced by its claim. A video taken over from a worker that died resumes call
 * by call from the checkpoints under the shared --out; Ctrl-C and SIGTERM hand the video back. The worker ends
 * when no video is left open: it waits while other live workers hold the last ones, as one of them may die.
 */
import { Cause, Duration, Effect, Exit, Option, Schedule } from "effect"
import type { BuildProgress, BuildSettings } from "../../domain/BuildRecord.js"
import { BuildQueue, type VideoClaim } from "../../services/BuildQueue.js"
import type { RunStoreError } from "../../services/RunStore.js"
import { countOf } from "../../text/Format.js"
import { BuildError } from "./BuildError.js"
import type { BuildEvent, BuildInput, BuildOptions, VideoSummary } from "./BuildOptions.js"
import { settingsDifference, settingsHash, videosHash } from "./BuildSettings.js"
import { buildTree } from "./BuildTree.js"

/** What the worker reports besides the builder's own events: claims, outcomes, waits, the build's progress. */
export type QueueEvent =
  | {
    readonly _tag: "Joined"
    readonly buildId: string
    readonly created: boolean
    readonly progress: Option.Option<BuildProgress>
  }
  | { readonly _tag: "Claimed"; readonly videoId: string; readonly resumed: boolean; readonly durationSeconds: number }
  | {
    readonly _tag: "Finished"
    readonly videoId: string
    /** `taken`: this worker's lease lapsed and another worker claimed the video; it builds it. */
    readonly outcome: "done" | "failed" | "taken"
    readonly error?: string
    readonly progress: Option.Option<BuildProgress>
  }
  | { readonly _tag: "Waiting"; readonly heldByOthers: number }

export interface QueuedBuild {
  readonly buildId: string
  readonly settings: BuildSettings
  /** This worker, as the queue names its claims: `<host>:<pid>:<random>`. */
  readonly ownerId: string
  /** How long a claim lasts without a heartbeat (renewed every third of it); default 60 s. */
  readonly leaseMs?: number
  /** How long to wait before asking again while other workers hold the last videos; default 5 s. */
  readonly pollMs?: number
  readonly onQueueEvent?: (event: QueueEvent) => Effect.Effect<void>
}

export interface QueuedBuildResult {
  /** The videos this worker built. */
  readonly summaries: ReadonlyArray<VideoSummary>
  /** The videos this worker marked failed (a video that is not usable), with why. */
  readonly failed: ReadonlyArray<{ readonly videoId: string; readonly error: string }>
}

/** A video's own failure: marked failed, so no worker asks it again; the others go on. */
const videoFailure = (error: BuildError | RunStoreError): error is BuildError =>
  error._tag === "BuildError" && (error.reason === "BadInput" || error.reason === "Refused")

const refused = (message: string) => new BuildError({ reason: "BadOption", message })

/** Renews the video's lease every third of it; ends only by failing (`ClaimLost` when taken over). */
const heartbeat = (buildId: string, ownerId: string, claim: VideoClaim, leaseMs: number) =>
  Effect.flatMap(BuildQueue, (queue) =>
    queue.renewVideo(buildId, ownerId, claim, leaseMs).pipe(
      Effect.retry({
        schedule: Schedule.exponential(Math.max(1, Math.floor(leaseMs / 24))).pipe(
          Schedule.intersect(Schedule.recurs(3))
        ),
        while: (error) => error.reason !== "ClaimLost"
      }),
      Effect.repeat(Schedule.spaced(Math.max(1, Math.floor(leaseMs / 3)))),
      Effect.zipRight(Effect.never)
    ))

/** Joins the build, or creates it; a worker whose settings or videos differ from the build's is refused. */
const join = Effect.fnUntraced(function*(inputs: ReadonlyArray<BuildInput<any>>, build: QueuedBuild) {
  const queue = yield* BuildQueue
  const ids = inputs.map((input) => input.videoId)
  const joined = yield* queue.joinBuild({
    buildId: build.buildId,
    settings: build.settings,
    settingsHash: settingsHash(build.settings),
    videosHash: videosHash(ids),
    videos: inputs.map((input) => ({ videoId: input.videoId, durationSeconds: input.info.durationSeconds }))
  })
  const stored = joined.build
  if (stored.settingsHash !== settingsHash(build.settings)) {
    return yield* refused(
      `--build-id ${build.buildId}: the build was started with other settings (${
        settingsDifference(stored.settings, build.settings).join("; ")
      }) — start every worker of a build with the same settings, or give another --build-id`
    )
  }
  if (stored.videosHash !== videosHash(ids)) {
    return yield* refused(
      `--build-id ${build.buildId}: the build holds ${
        countOf(stored.videoCount, "video")
      } and this worker was given ${ids.length} ` +
        `(${stored.videoCount === ids.length ? "other ones" : "a different set"}) — give every worker of a build the ` +
        "same videos and --questions, or give another --build-id"
    )
  }
  return joined.created
})

const lost = (error: RunStoreError | BuildError) => error._tag === "RunStoreError" && error.reason === "ClaimLost"

/** How one claimed video ended for this worker: built, marked failed (its own fault), or taken over meanwhile. */
type VideoOutcome =
  | { readonly outcome: "done"; readonly summaries: ReadonlyArray<VideoSummary> }
  | { readonly outcome: "failed"; readonly error: string }
  | { readonly outcome: "taken" }

/**
 * Builds one claimed video under its heartbeat and marks it done (or failed), fenced by the claim. Interrupted, or
 * failing for a reason that is not the video's, it hands the video back first.
 */
const buildClaimed = Effect.fnUntraced(function*<R>(
  claim: VideoClaim,
  input: BuildInput<R>,
  options: BuildOptions,
  build: QueuedBuild & { readonly leaseMs: number }
) {
  const queue = yield* BuildQueue
  const { buildId, ownerId } = build
  const handBack = queue.releaseVideo(buildId, ownerId, claim).pipe(Effect.ignore)
  const exit = yield* Effect.exit(
    Effect.raceFirst(
      buildTree([input], { ...options, leased: true }),
      heartbeat(buildId, ownerId, claim, build.leaseMs)
    ).pipe(Effect.onInterrupt(() => handBack))
  )
  if (Exit.isSuccess(exit)) {
    // Taken over meanwhile: the other worker writes the same tree from the same checkpoints.
    const marked = yield* Effect.either(queue.finishVideo(buildId, ownerId, claim, { status: "done" }))
    if (marked._tag === "Left" && !lost(marked.left)) return yield* marked.left
    const outcome: VideoOutcome = marked._tag === "Left"
      ? { outcome: "taken" }
      : { outcome: "done", summaries: exit.value }
    return outcome
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return yield* Effect.failCause(exit.cause)
  const error = failure.value
  if (lost(error)) return { outcome: "taken" } satisfies VideoOutcome
  if (videoFailure(error)) {
    const marked = yield* Effect.either(
      queue.finishVideo(buildId, ownerId, claim, { status: "failed", error: error.message })
    )
    if (marked._tag === "Left" && !lost(marked.left)) return yield* marked.left
    return { outcome: "failed", error: error.message } satisfies VideoOutcome
  }
  yield* handBack
  return yield* error
})

/**
 * Builds the build's videos with the other workers sharing it, one at a time. Fails on a failure that is not
 * the video's own (a model endpoint down, --out unwritable, the database gone), after handing the video back.
 */
export const runQueuedBuild = Effect.fn("BuildWorker.run")(function*<R = never>(
  inputs: ReadonlyArray<BuildInput<R>>,
  options: BuildOptions,
  build: QueuedBuild
) {
  const queue = yield* BuildQueue
  const { buildId, ownerId } = build
  const leaseMs = build.leaseMs ?? 60_000
  const emit = build.onQueueEvent ?? (() => Effect.void)
  const byId = new Map(inputs.map((input) => [input.videoId, input]))
  const created = yield* join(inputs, build)
  // What the builder's progress line counts: the build's videos, not this worker's one at a time.
  let progress = yield* queue.progress(buildId)
  yield* emit({ _tag: "Joined", buildId, created, progress })
  const onEvent = (event: BuildEvent) =>
    options.onEvent === undefined ? Effect.void : options.onEvent(
      event._tag === "VideoStarted" && Option.isSome(progress)
        ? { ...event, index: progress.value.done + progress.value.failed, total: progress.value.videos }
        : event
    )
  const summaries: Array<VideoSummary> = []
  const failed: Array<{ videoId: string; error: string }> = []
  let waiting = false
  while (true) {
    const { claim, heldByOthers } = yield* queue.claimVideo(buildId, ownerId, leaseMs)
    if (Option.isNone(claim)) {
      if (heldByOthers === 0) break
      if (!waiting) yield* emit({ _tag: "Waiting", heldByOthers })
      waiting = true
      yield* Effect.sleep(Duration.millis(build.pollMs ?? 5_000))
      continue
    }
    waiting = false
    const { videoId } = claim.value
    const input = byId.get(videoId)
    // The sets were compared by hash on joining: a video missing here means the build's rows were changed.
    if (input === undefined) {
      yield* queue.releaseVideo(buildId, ownerId, claim.value)
      return yield* refused(
        `--build-id ${buildId}: the build's queue holds video ${videoId}, which this worker was not given — ` +
          "give every worker the same videos, or give another --build-id"
      )
    }
    yield* emit({ _tag: "Claimed", videoId, resumed: claim.value.resumed, durationSeconds: input.info.durationSeconds })
    const ended = yield* buildClaimed(claim.value, input, { ...options, onEvent }, { ...build, leaseMs })
    if (ended.outcome === "done") { for (const summary of ended.summaries) summaries.push(summary) }
    if (ended.outcome === "failed") failed.push({ videoId, error: ended.error })
    progress = yield* queue.progress(buildId).pipe(Effect.orElseSucceed(() => progress))
    yield* emit({
      _tag: "Finished",
      videoId,
      outcome: ended.outcome,
      ...(ended.outcome === "failed" ? { error: ended.error } : {}),
      progress
    })
  }
  const result: QueuedBuildResult = { summaries, failed }
  return result
})

/** `3.4/20.0 h`, or in minutes for a build under an hour. */
const span = (done: number, total: number) =>
  total >= 3600
    ? `${(done / 3600).toFixed(1)}/${(total / 3600).toFixed(1)} h`
    : `${(done / 60).toFixed(1)}/${(total / 60).toFixed(1)} min`

/** `build B: 12/100 videos (3.4/20.0 h) · 1 failed · 4 building on 4 workers`, for the progress lines. */
export const renderQueueProgress = (progress: BuildProgress): string =>
  `build ${progress.buildId}: ${progress.done}/${progress.videos} videos (${
    span(progress.doneSeconds, progress.totalSeconds)
  })` +
  (progress.failed > 0 ? ` · ${progress.failed} failed` : "") +
  ` · ${progress.building} building on ${progress.workers} worker${progress.workers === 1 ? "" : "s"}`

/** One line per queue event, for stderr. */
export const renderQueueEvent = (event: QueueEvent): string => {
  const progress = (p: Option.Option<BuildProgress>) =>
    Option.match(p, { onNone: () => "", onSome: renderQueueProgress })
  switch (event._tag) {
    case "Joined":
      return `${event.created ? "started" : "joined"} ${progress(event.progress)}`
    case "Claimed":
      return `building ${event.videoId} (${(event.durationSeconds / 60).toFixed(1)} min)${
        event.resumed ? ", resumed from its checkpoints" : ""
      }`
    case "Finished":
      return `${event.videoId}: ${
        event.outcome === "done"
          ? "done"
          : event.outcome === "taken"
          ? "taken over by another worker (this worker's lease lapsed)"
          : `failed: ${event.error ?? ""}`
      } — ${progress(event.progress)}`
    case "Waiting":
      return `waiting: ${event.heldByOthers} video${
        event.heldByOthers === 1 ? "" : "s"
      } left, held by other workers (taken over if their lease lapses)`
  }
}
