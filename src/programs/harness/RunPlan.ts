// Before a benchmark asks anything: the options and the trees checked, the run started (or claimed, to
// resume or join it), its question queue fixed.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Clock, Effect, Either, Option, Random } from "effect"
import type { Question } from "../../domain/Question.js"
import { definedOnly, recordedSampling, RunConfig, runFinalAnswer } from "../../domain/RunConfig.js"
import type { RunRow, RunSelection } from "../../domain/RunRecord.js"
import { samplingDifference } from "../../domain/Sampling.js"
import { packageVersion } from "../../PackageRoot.js"
import { type RunOwner, RunStore } from "../../services/RunStore.js"
import { findTreeFolder, treesFolderHint } from "../tree/TreeLoader.js"
import { checkQuestionIds, checkRunId, decodeTrees } from "../tree/TreePreflight.js"
import type { BenchmarkOptions } from "./BenchmarkOptions.js"
import { controlPlanOf, controlRefusal, controlSettings, prepareControl } from "./Controls.js"
import { InferError } from "./InferError.js"
import { completeSelection, selectionDifference } from "./RunSelection.js"

/** `run-20250102-130405-k3f9`: sortable, readable, and unique enough for one database. */
export const newRunId = Effect.gen(function*() {
  const now = new Date(yield* Clock.currentTimeMillis)
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15)
  const suffix = (yield* Random.nextIntBetween(0, 36 ** 4)).toString(36).padStart(4, "0")
  return `run-${stamp}-${suffix}`
})

/**
 * Every tree the questions need must exist before anything starts: finding out an hour into a run
 * that one video has no tree wastes the hour.
 */
export const checkTrees = Effect.fn("RunPlan.checkTrees")(
  function*(treesDir: string, questions: ReadonlyArray<Question>) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const info = yield* Effect.either(fs.stat(treesDir))
    if (Either.isLeft(info) || info.right.type !== "Directory") {
      return yield* new InferError({
        reason: "TreesMissing",
        message: `--trees ${treesDir}: ${Either.isLeft(info) ? "no such directory" : "not a directory"} — ` +
          `pass the folder holding one <videoID>/tree.json per video`
      })
    }
    const byVideo = new Map<string, Array<string>>()
    for (const question of questions) {
      const list = byVideo.get(question.videoId)
      if (list === undefined) byVideo.set(question.videoId, [question.questionId])
      else list.push(question.questionId)
    }
    const videos = [...byVideo.keys()]
    const present = yield* Effect.forEach(
      videos,
      (video) => Effect.map(findTreeFolder(treesDir, video), Option.isSome),
      { concurrency: 32 }
    )
    const missing = videos.filter((_, i) => !present[i])
    if (missing.length > 0) {
      const first = missing[0]!
      const ids = byVideo.get(first)!
      const questionsText = ids.length === 1 ? `question ${ids[0]}` : `questions ${ids[0]} and ${ids.length - 1} more`
      const others = missing.length > 1
        ? ` (and ${missing.length - 1} more videos: ${missing.slice(1, 4).join(", ")}${
          missing.length > 4 ? ", …" : ""
        })`
        : ""
      const hint = yield* treesFolderHint(treesDir)
      return yield* new InferError({
        reason: "TreeMissing",
        message: `${path.join(treesDir, first, "tree.json")}: not found, needed by ${questionsText}${others} — ` +
          Option.getOrElse(
            hint,
            () => "build the tree, fix --trees, or leave the video out with --video-ids / --question-ids"
          )
      })
    }
  }
)

/** The record a new run is made with: the options as given, each setting they leave out at RunConfig's default. */
export const runConfigOf = (options: BenchmarkOptions<any>, treesDir: string): RunConfig =>
  RunConfig.make(
    definedOnly({
      ...options.config,
      benchmark: options.benchmark,
      answers: options.answers,
      concurrency: options.concurrency,
      maxSteps: options.maxSteps,
      finalAnswer: options.finalAnswer,
      skillMode: options.skillMode,
      protocol: options.protocol,
      verifyVision: options.verifyVision,
      anchor: options.anchor,
      webSearch: options.webSearch,
      sampling: options.sampling,
      treesDir,
      questions: options.questions.length,
      prompts: options.prompts.dir,
      // A later report prices the run with these unless told otherwise, and names the version that ran it.
      prices: options.prices === undefined || Object.keys(options.prices).length === 0 ? undefined : options.prices,
      vtreeVersion: packageVersion(),
      ...controlSettings(options)
    }),
    true
  )

/** How a refusal to continue or join a run ends: what to do instead. */
const verb = (flag: string) => (flag === "--resume" ? "resume" : "join")

/**
 * Why this invocation may not continue or join `stored` (one protocol, final-answer mode, sampling,
 * benchmark, keys file and question set per run), if it may not. `options` are the flags as given: a flag
 * left out takes the run's own value, except the protocol and keys, whose absence means json and none.
 */
const joinRefusal = (
  stored: RunRow,
  options: BenchmarkOptions<any>,
  config: RunConfig,
  selection: RunSelection | undefined,
  flag: string
): InferError | undefined => {
  const refuse = (message: string) => new InferError({ reason: "BadOption", message })
  const run = stored.config
  const control = controlRefusal(stored, options, verb(flag))
  if (control !== undefined) return control
  // One run, one protocol: a --compare of the two must not be blurred by a run that mixes them.
  if (run.protocol !== config.protocol) {
    return refuse(
      `--protocol ${config.protocol}: run ${stored.runId} was started with --protocol ${run.protocol} — ${
        verb(flag)
      } it with the same protocol`
    )
  }
  // One run, one final-answer mode: its forced answers are counted under one rule. Unsaid, the run's own.
  if (options.finalAnswer !== undefined && runFinalAnswer(run) !== options.finalAnswer) {
    return refuse(
      `--no-final-answer: run ${stored.runId} was started with the final answer at the budget on — ${
        verb(flag)
      } it without --no-final-answer, or start a new run`
    )
  }
  // One run, one sampling: a run mixing settings could not be repeated. Runs stored before it was
  // recorded are not checked (what they sent is not known).
  const recorded = recordedSampling(run)
  const difference = recorded === undefined || options.sampling === undefined
    ? undefined
    : samplingDifference(recorded, options.sampling)
  if (difference !== undefined) {
    return refuse(
      `${flag}: run ${stored.runId} was started with other sampling: ${difference} — ${
        verb(flag)
      } it with the run's values, or start a new run`
    )
  }
  // One run, one benchmark: its report and export follow the benchmark's rule.
  if (options.benchmark !== undefined && run.benchmark !== options.benchmark) {
    return refuse(
      `--benchmark ${options.benchmark}: run ${stored.runId} is a ${run.benchmark} run — ${
        verb(flag)
      } it with --benchmark ${run.benchmark}, or start a new run`
    )
  }
  // Keys shipped apart are part of the question set: without them a resumed run would save unscored rows.
  if (run.answers !== config.answers) {
    return refuse(
      `--answers ${config.answers ?? "(none)"}: run ${stored.runId} was started with ${
        run.answers === null ? "no --answers" : `--answers ${run.answers}`
      } — ${verb(flag)} it with the same keys, or start a new run`
    )
  }
  const changed = stored.selection == null || selection === undefined
    ? undefined
    : selectionDifference(stored.selection, selection)
  if (changed !== undefined) {
    return new InferError({
      reason: "SelectionChanged",
      message: `${flag}: ${changed} — a run is its question set: ${
        flag === "--resume" ? "resume" : "start every worker of the run"
      } without the selection flags to ask the run's own, or start a new run`
    })
  }
  return undefined
}

const startOrResume = Effect.fn("RunPlan.startOrResume")(function*(
  options: BenchmarkOptions<any>,
  config: RunConfig,
  owner: RunOwner,
  leaseMs: number
) {
  const store = yield* RunStore
  const selection = options.selection === undefined
    ? undefined
    : completeSelection(options.selection, options.questions)
  // Continuing a run, or joining one other workers share: the same settings and question set, or refused.
  const join = (runId: string, flag: string) =>
    Effect.gen(function*() {
      const stored = yield* store.getRun(runId)
      const refusal = Option.isNone(stored)
        ? undefined
        : joinRefusal(stored.value, options, config, selection, flag)
      if (refusal !== undefined) return yield* refusal
      return yield* store.claimRun({ runId, owner, leaseMs })
    })
  if (options.resume === true || options.takeover === true) {
    // Without an id, --resume continues the most recently started run of this database.
    const runId = options.runId ?? (yield* store.listRuns)[0]?.runId
    if (runId === undefined) {
      return yield* new InferError({
        reason: "NothingToResume",
        message: "--resume: the database holds no run to resume — start one without --resume"
      })
    }
    return yield* join(runId, "--resume")
  }
  const runId = options.runId ?? (yield* newRunId)
  const started = store.startRun({ runId, config, owner, leaseMs, ...(selection === undefined ? {} : { selection }) })
  // On a store many workers share, `--run-id R` started on several machines is one run: the first
  // creates it, the others join.
  return yield* store.owners === "many" && options.runId !== undefined
    ? Effect.catchIf(started, (error) => error.reason === "RunExists", () => join(runId, `--run-id ${runId}`))
    : started
})

/** What is wrong with the options before anything is read, if anything. */
const optionProblem = (options: BenchmarkOptions<any>, concurrency: number): InferError | undefined => {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    return new InferError({ reason: "BadOption", message: `--concurrency ${concurrency}: expected a whole number ≥ 1` })
  }
  if (options.retryErrors === true && options.resume !== true && options.takeover !== true) {
    return new InferError({
      reason: "BadOption",
      message: "--retry-errors re-asks the failed questions of an earlier run: use it with --resume (and --run-id)"
    })
  }
  // Checked before the run exists: a refused option must leave nothing behind in the store.
  if (options.maxCostUsd !== undefined && Object.keys(options.prices ?? {}).length === 0) {
    return new InferError({
      reason: "BadOption",
      message:
        "--max-cost needs prices: set VTREE_<ROLE>_PRICE=input,cached,output (USD per 1M tokens) or pass --prices FILE"
    })
  }
  if (options.questions.length === 0) {
    return new InferError({
      reason: "NoQuestions",
      message:
        "no questions selected — check --questions and the --video-ids / --question-ids / --task-types / --n-samples filters"
    })
  }
  return undefined
}

/**
 * Checks the options and the trees, starts (or claims, to resume or join) the run as `owner`, fixes
 * its question queue and says where the queue stands.
 */
export const prepareRun = Effect.fn("RunPlan.prepareRun")(function*(
  options: BenchmarkOptions<any>,
  config: RunConfig,
  owner: RunOwner,
  leaseMs: number
) {
  const problem = optionProblem(options, config.concurrency)
  if (problem !== undefined) return yield* problem
  yield* checkRunId(options.runId)
  yield* checkQuestionIds(options.questions)
  yield* checkTrees(options.treesDir, options.questions)
  yield* decodeTrees(options.treesDir, options.questions)
  const run = yield* startOrResume(options, yield* prepareControl(options, config), owner, leaseMs)
  const store = yield* RunStore
  const progress = yield* store.planQuestions(run.runId, options.questions.map((question) => question.questionId), {
    retryErrors: options.retryErrors === true
  })
  // What was open when this worker joined: it sizes the tree cache, not the work (the queue hands that out).
  const finished = yield* store.finishedQuestionIds(run.runId, { exceptErrors: options.retryErrors === true })
  // The mode the run was started with, whoever started it: a resumed or joined run keeps its own.
  const stored = yield* store.getRun(run.runId)
  return {
    runId: run.runId,
    finalAnswer: Option.match(stored, { onNone: () => config.finalAnswer, onSome: (r) => runFinalAnswer(r.config) }),
    progress,
    open: options.questions.filter((question) => !finished.has(question.questionId)),
    // A control run's kind, seed and pairing as it was started with them.
    control: controlPlanOf(Option.match(stored, { onNone: () => config, onSome: (r) => r.config }))
  }
})
