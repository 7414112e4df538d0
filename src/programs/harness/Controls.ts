// Control runs (`vtree infer --control blind|shuffled|chance`): what a score is measured against. A control run
// is an ordinary run whose record names its kind; this module fixes what the kind needs before the run starts
// (a shuffled run's pairing, a blind run's prompt) and how its questions are answered: blind by one model call
// (BlindAnswer.ts), shuffled by the agent over the paired video's tree, chance by a seeded draw.
import { Effect } from "effect"
import { optionLetters } from "../../domain/Answer.js"
import { type ControlKind, type ControlPairs, defaultControlSeed } from "../../domain/Control.js"
import { emptyToolStats, type Prediction } from "../../domain/Prediction.js"
import type { Question } from "../../domain/Question.js"
import { type RunConfig, runControl, type StoredRunConfig } from "../../domain/RunConfig.js"
import { emptyUsage } from "../../services/CallLog.js"
import type { QuestionInput } from "../agent/RunQuestion.js"
import { loadBlindPrompt } from "../prompts/BlindPrompt.js"
import { readTreeIndex, treeFolderOf } from "../tree/TreeLoader.js"
import type { BenchmarkOptions } from "./BenchmarkOptions.js"
import { blindAnswer, type ControlAnswering } from "./BlindAnswer.js"
import { InferError } from "./InferError.js"
import { loadEnvironments } from "./TreeCache.js"

// ---- Seeded draws: the same seed and name give the same number, whatever the order questions are answered in.

/** FNV-1a of `text`, 32 bits. */
const hash = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const drawOf = (seed: number, name: string): number => seeded(hash(`${seed}:${name}`))()

// ---- Shuffled: each video's questions answered over the tree of a video of similar duration.

export interface VideoLength {
  readonly videoId: string
  /** The video's length in seconds (its tree's duration, else its last scene's end). */
  readonly seconds: number
}

/**
 * A derangement of the run's videos by duration: sorted by length (ties broken by a seeded draw), neighbours are
 * paired (A's questions over B's tree and B's over A's), three in a cycle where the count is odd; the seed also
 * picks which of the two neighbour matchings is used (pairs from the shortest, or a cycle of three first) and each
 * cycle's direction. No video is paired with itself; undefined when there are fewer than two videos. Pure.
 */
export const pairByDuration = (videos: ReadonlyArray<VideoLength>, seed: number): ControlPairs | undefined => {
  const unique = [...new Map(videos.map((video) => [video.videoId, video])).values()]
  if (unique.length < 2) return undefined
  const sorted = unique
    .map((video) => ({ ...video, tie: drawOf(seed, video.videoId) }))
    .sort((a, b) => a.seconds - b.seconds || a.tie - b.tie || (a.videoId < b.videoId ? -1 : 1))
  const random = seeded(hash(`${seed}:pairing`))
  const n = sorted.length
  const groups: Array<Array<number>> = []
  // A cycle of three first only where the rest still pairs up (not n = 4, where it would leave one alone).
  let next = n >= 3 && n !== 4 && random() < 0.5 ? 3 : 0
  if (next === 3) groups.push([0, 1, 2])
  while (next < n) {
    if (n - next >= 2) {
      groups.push([next, next + 1])
      next += 2
    } else {
      groups[groups.length - 1]!.push(next)
      next += 1
    }
  }
  const pairs: Record<string, string> = {}
  for (const group of groups) {
    const cycle = random() < 0.5 ? group : [...group].reverse()
    cycle.forEach((index, i) => {
      pairs[sorted[index]!.videoId] = sorted[cycle[(i + 1) % cycle.length]!]!.videoId
    })
  }
  return pairs
}

/** Each video's length, read from its tree (one at a time: a tree is dropped once measured). */
const videoLengths = (treesDir: string, questions: ReadonlyArray<Question>) =>
  Effect.forEach(
    [...new Set(questions.map((question) => question.videoId))],
    (videoId) =>
      Effect.map(Effect.flatMap(treeFolderOf(treesDir, videoId), readTreeIndex), ({ index }): VideoLength => {
        const ends = index.rootIds.map((id) => index.nodes.get(id)?.timeRange[1] ?? 0)
        return { videoId, seconds: index.durationSeconds ?? Math.max(0, ...ends) }
      })
  )

// ---- Chance: no model, a seeded uniform draw among the options.

/** The letter a chance control draws for a question: uniform among its options, fixed by seed and question id. */
export const chanceLetter = (questionId: string, optionCount: number, seed: number): string | null => {
  const letters = optionLetters(optionCount)
  return letters.length === 0 ? null : letters[Math.floor(drawOf(seed, questionId) * letters.length)]!
}

const chancePrediction = (question: QuestionInput, seed: number): Prediction => {
  // An open-ended question has nothing to draw from: no answer.
  const optionCount = question.options?.length ?? 0
  const letter = chanceLetter(question.questionId, optionCount, seed)
  return {
    questionId: question.questionId,
    answer: letter,
    prediction: letter,
    evidence: null,
    reasoning: letter === null ? null : `chance control: drawn uniformly among ${optionCount} options`,
    steps: [],
    stepsUsed: 0,
    usage: emptyUsage(),
    stats: emptyToolStats(),
    stopReason: letter === null ? "parse_error" : "finished",
    error: letter === null ? "chance control: the question has no options to draw from" : null
  }
}

// ---- The run's control: fixed when it starts, stored with it, read back on --resume.

/** What a run's record says about its control, as the harness reads it. */
export interface ControlPlan {
  readonly kind: ControlKind
  readonly seed: number
  /** A shuffled run's pairing (video → the video whose tree it is answered over). */
  readonly pairs: ControlPairs | undefined
}

/** The control a run's record (new or stored) names. */
export const controlPlanOf = (
  config: Pick<RunConfig | StoredRunConfig, "control" | "controlSeed" | "controlPairs">
): ControlPlan => ({
  kind: runControl(config),
  seed: config.controlSeed ?? defaultControlSeed,
  pairs: config.controlPairs
})

/** The record's control settings as the options give them: a seed only for the kinds that draw one. */
export const controlSettings = (options: BenchmarkOptions<any>): Pick<RunConfig, "control" | "controlSeed"> | {} =>
  options.control === undefined || options.control === "none" ? {} : {
    control: options.control,
    ...(options.control === "blind" ? {} : { controlSeed: options.controlSeed ?? defaultControlSeed })
  }

const resuming = (options: BenchmarkOptions<any>) => options.resume === true || options.takeover === true

/**
 * Before a new control run is stored: a shuffled run's pairing computed from its videos' durations (stored in its
 * record, so --resume keeps it), a blind run's prompt checked. A resumed run keeps what it was started with.
 */
export const prepareControl = Effect.fn("Controls.prepareControl")(function*(
  options: BenchmarkOptions<any>,
  config: RunConfig
) {
  if (resuming(options)) return config
  if (options.controlSeed !== undefined && config.controlSeed === undefined) {
    return yield* new InferError({
      reason: "BadOption",
      message:
        `--control-seed ${options.controlSeed}: only --control shuffled and --control chance draw with a seed — ` +
        "drop --control-seed, or pick one of them"
    })
  }
  if (config.control === "blind") yield* loadBlindPrompt(options.prompts.dir)
  if (config.control !== "shuffled") return config
  const pairs = pairByDuration(
    yield* videoLengths(options.treesDir, options.questions),
    config.controlSeed ?? defaultControlSeed
  )
  if (pairs === undefined) {
    return yield* new InferError({
      reason: "BadOption",
      message: `--control shuffled: the questions name one video (${
        options.questions[0]?.videoId ?? "none"
      }) — a shuffled control answers over another video's tree: select questions of two videos or more`
    })
  }
  const paired: RunConfig = { ...config, controlPairs: pairs }
  return paired
})

/** Why `--control` / `--control-seed` may not continue or join `stored`, if they may not: one run, one control. */
export const controlRefusal = (
  stored: { readonly runId: string; readonly config: StoredRunConfig },
  options: BenchmarkOptions<any>,
  verb: string
): InferError | undefined => {
  const run = stored.config
  if (options.control !== undefined && options.control !== runControl(run)) {
    return new InferError({
      reason: "BadOption",
      message: `--control ${options.control}: run ${stored.runId} is ${
        runControl(run) === "none" ? "no control" : `a ${runControl(run)} control`
      } — ${verb} it without --control, or start a new run`
    })
  }
  if (options.controlSeed !== undefined && run.controlSeed !== undefined && options.controlSeed !== run.controlSeed) {
    return new InferError({
      reason: "BadOption",
      message:
        `--control-seed ${options.controlSeed}: run ${stored.runId} was started with --control-seed ${run.controlSeed} — ${verb} it without --control-seed, or start a new run`
    })
  }
  return undefined
}

/**
 * The run's trees as its control reads them: a shuffled run answers each video's questions over its partner's
 * tree (loaded, held and dropped by the partner's id); blind and chance runs open none.
 */
export const controlEnvironments = Effect.fn("Controls.controlEnvironments")(function*(
  control: ControlPlan,
  runId: string,
  treesDir: string,
  open: ReadonlyArray<Question>,
  concurrency: number
) {
  const pairs = control.pairs
  if (control.kind !== "shuffled" || pairs === undefined) {
    return yield* loadEnvironments(runId, treesDir, open, concurrency)
  }
  const partner = (videoId: string) => pairs[videoId] ?? videoId
  const trees = yield* loadEnvironments(
    runId,
    treesDir,
    open.map((question) => ({ ...question, videoId: partner(question.videoId) })),
    concurrency
  )
  return {
    get: (videoId: string) =>
      pairs[videoId] === undefined
        ? Effect.fail(`video ${videoId} is not in run ${runId}'s shuffled pairing — start a new control run`)
        : trees.get(pairs[videoId]),
    release: (videoId: string) => trees.release(partner(videoId))
  }
})

/** How the run's control answers a question in place of the agent: blind and chance do; none and shuffled don't. */
export const controlAnswering = Effect.fn("Controls.controlAnswering")(function*(
  control: ControlPlan,
  options: BenchmarkOptions<any>
) {
  const template = control.kind === "blind" ? yield* loadBlindPrompt(options.prompts.dir) : ""
  const answering: ControlAnswering = control.kind === "blind"
    ? {
      controlAnswer: (question) =>
        blindAnswer(question, {
          template,
          prompts: options.prompts,
          ...(options.retrySchedule === undefined ? {} : { retrySchedule: options.retrySchedule })
        })
    }
    : control.kind === "chance"
    ? { controlAnswer: (question) => Effect.succeed(chancePrediction(question, control.seed)) }
    : {}
  return answering
})
