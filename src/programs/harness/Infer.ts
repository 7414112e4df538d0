// The benchmark harness as an Effect program: `vtree infer` is this plus flag parsing, layers and a
// progress display. It needs only ports (RunStore, CallBuffer, the providers), so an embedding app can
// run a whole benchmark with its own layers or the fakes.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Cause, Clock, Effect, Either, Exit, Option, Random, Schedule } from "effect"
import * as os from "node:os"
import { emptyToolStats, type Prediction } from "../../domain/Prediction.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import type { Question } from "../../domain/Question.js"
import { CallBuffer, captureCalls } from "../../services/CallBuffer.js"
import {
  defaultLeaseMs,
  type PredictionRow,
  type RunOwner,
  type RunStatus,
  RunStore,
  RunStoreError
} from "../../services/RunStore.js"
import {
  addUsage,
  type CallRecord,
  emptyUsage,
  type RoleUsage,
  tokenDetails,
  type UsageByRole,
  withCallContext
} from "../../services/CallLog.js"
import { runQuestion, type RunQuestionOptions } from "../agent/RunQuestion.js"
import type { PromptManager, SkillMode } from "../prompts/PromptManager.js"
import { makeSummaryCache } from "../tools/SummaryCache.js"
import type { AnchorMode } from "../tools/ToolContext.js"
import type { TreeIndex } from "../../domain/TreeIndex.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import { loadTreeEnvironment } from "../tree/TreeLoader.js"
import { checkQuestionIds, checkRunId, decodeTrees } from "../tree/TreePreflight.js"
import { countShapes } from "../../domain/Protocol.js"
import { InferError } from "./InferError.js"
import type { AgentProtocol } from "../agent/AgentLoop.js"
import { runProtocol } from "./RunProtocol.js"
import { completeSelection, selectionDifference, type SelectionInput } from "./RunSelection.js"
import { Budget } from "./Budget.js"
import { costOfCalls, type Prices } from "./Cost.js"
import { claimBatch, makeWorkQueue } from "./WorkQueue.js"

export { InferError, InferErrorReason } from "./InferError.js"

/** Questions answered at once unless told otherwise. */
export const defaultConcurrency = 12

/** What the harness reports while it runs, for progress displays and embedding apps. */
export type BenchmarkEvent =
  | {
    readonly _tag: "RunStarted"
    readonly runId: string
    readonly resumed: boolean
    /** Questions selected for the run, finished ones included. */
    readonly total: number
    /** Already saved by an earlier attempt of this run (skipped by `resume`). */
    readonly alreadyDone: number
  }
  | {
    readonly _tag: "QuestionFinished"
    readonly row: PredictionRow
    readonly calls: number
  }
  | {
    /**
     * The run as the store has it, every worker's saves counted: sent every few seconds on a store
     * several workers share, where this worker's own QuestionFinished events are only its part.
     */
    readonly _tag: "RunProgress"
    readonly done: number
    readonly total: number
    /** Workers whose lease is live, this one included. */
    readonly workers: number
  }

export interface BenchmarkOptions<R = never> {
  /** The folder holding one `<videoID>/tree.json` per video. */
  readonly treesDir: string
  /** Already loaded and selected (loadQuestions + selectQuestions). */
  readonly questions: ReadonlyArray<Question>
  readonly prompts: PromptManager
  /** Default: a new id from the start time. With `resume`: the run to continue, default the latest. */
  readonly runId?: string
  /** Continue a run: questions it already saved are skipped. */
  readonly resume?: boolean
  /** With `resume`: ask again the questions that ended with stop reason `error` (an outage, say). */
  readonly retryErrors?: boolean
  /**
   * Take over a run whose owner's lease has expired (implies `resume`); refused while the lease is
   * live. `resume` alone takes over a stale run too: the flag says so out loud.
   */
  readonly takeover?: boolean
  /**
   * Where the questions came from and how they were picked: stored with a new run; with `resume`,
   * a different selection (or the same filters over a changed file) is refused.
   */
  readonly selection?: SelectionInput
  /** Who runs the benchmark; default: this host, this pid and a random suffix. */
  readonly owner?: RunOwner
  /** How long the run's lease lasts without a heartbeat (default 60 s); heartbeats come every third of it. */
  readonly leaseMs?: number
  /** Questions answered at once; default 12. */
  readonly concurrency?: number
  readonly maxSteps?: number
  readonly skillMode?: SkillMode
  readonly verifyVision?: boolean
  readonly anchor?: AnchorMode
  readonly webSearch?: boolean
  readonly extraTools?: RunQuestionOptions<R>["extraTools"]
  /** Overrides the agent's step-level retry (20 s, then 40 s). */
  readonly retrySchedule?: Schedule.Schedule<unknown, ProviderError>
  /** How the agent calls tools: `json` (default) or `tools` (native function calling); stored with the run. */
  readonly protocol?: AgentProtocol
  /** Written to config_json next to the run options; must hold no secrets (the store drops keys anyway). */
  readonly config?: Readonly<Record<string, unknown>>
  readonly onEvent?: (event: BenchmarkEvent) => Effect.Effect<void>
  /**
   * `--max-cost`: stop starting questions once spent + the in-flight estimate would pass this many USD
   * (see Budget.ts); the run ends `budget_stopped` and `--resume` with a higher cap continues it.
   * Needs `prices`.
   */
  readonly maxCostUsd?: number
  readonly prices?: Prices
}

export interface BenchmarkResult {
  readonly runId: string
  /** Questions answered by this invocation. */
  readonly answered: number
  /** Questions the run had saved before this invocation joined it. */
  readonly skipped: number
  /**
   * The run's status when this invocation let go of it: `running` while other workers sharing the
   * run are still at it; absent when the store could not say.
   */
  readonly status?: RunStatus
}

const sumUsage = (usage: UsageByRole): RoleUsage => {
  const total: RoleUsage = { calls: 0, promptTokens: 0, completionTokens: 0 }
  for (const role of Object.values(usage)) addUsage(total, role)
  return total
}

const usageOfCalls = (calls: ReadonlyArray<CallRecord>): UsageByRole => {
  const usage = emptyUsage()
  for (const call of calls) addUsage(usage[call.role], call)
  return usage
}

/** A question that never reached the agent, or whose run died: kept as an `error` row, never dropped. */
const settingsByRole: Readonly<Record<string, string>> = {
  agent: "VTREE_LLM_API_KEY / VTREE_LLM_MODEL",
  tool: "VTREE_TOOL_LLM_API_KEY / VTREE_TOOL_LLM_MODEL (they default to the VTREE_LLM_ values)",
  vlm: "VTREE_VLM_API_KEY / VTREE_VLM_MODEL (they default to the VTREE_LLM_ values)",
  embed: "VTREE_EMBED_API_KEY / VTREE_EMBED_MODEL",
  ocr: "VTREE_OCR_URLS"
}

/**
 * Whether a finished question shows that an endpoint refuses the configuration itself — the key
 * (401/403, any role) or the agent's model name (404) — rather than trouble with this one question.
 * Returns what to tell the user, or undefined.
 */
export const configurationRejection = (
  prediction: Prediction,
  calls: ReadonlyArray<CallRecord>
): string | undefined => {
  const refused = calls.find((call) => call.status === "error" && call.errorReason === "Auth")
  if (refused !== undefined) {
    return `the ${refused.role} model endpoint refused the credentials (model ${refused.model}) — check ${
      settingsByRole[refused.role] ?? "the provider settings"
    }`
  }
  const failure = prediction.providerError
  if (failure !== undefined && failure.reason === "NotFound") {
    return `the agent model endpoint answered 404 (${firstLine(prediction.error ?? "not found")}) — check VTREE_LLM_MODEL and VTREE_LLM_BASE_URL (it usually ends in /v1)`
  }
  return undefined
}

/** A question that ended outside the agent loop (its tree failed to load, a defect): no steps, no usage. */
export const failedPrediction = (questionId: string, error: string): Prediction => ({
  questionId,
  answer: null,
  prediction: null,
  evidence: null,
  reasoning: null,
  steps: [],
  stepsUsed: 0,
  usage: emptyUsage(),
  stats: emptyToolStats(),
  stopReason: "error",
  error
})

const firstLine = (text: string): string => text.split("\n").find((line) => line.trim() !== "")?.trim() ?? text

const describeCause = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  const error: unknown = Option.isSome(failure) ? failure.value : Cause.squash(cause)
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return firstLine(error.message)
  }
  return firstLine(String(error))
}

/** This process as a run owner: `<host>:<pid>:<random>`, readable in a refusal and unique across restarts. */
export const thisProcess = Effect.gen(function*() {
  const host = os.hostname()
  const pid = process.pid
  const suffix = (yield* Random.nextIntBetween(0, 36 ** 4)).toString(36).padStart(4, "0")
  const owner: RunOwner = { ownerId: `${host}:${pid}:${suffix}`, host, pid }
  return owner
})

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
export const checkTrees = Effect.fn("Infer.checkTrees")(function*(treesDir: string, questions: ReadonlyArray<Question>) {
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
    (video) => fs.exists(path.join(treesDir, video, "tree.json")).pipe(Effect.orElseSucceed(() => false)),
    { concurrency: 32 }
  )
  const missing = videos.filter((_, i) => !present[i])
  if (missing.length > 0) {
    const first = missing[0]!
    const ids = byVideo.get(first)!
    const questionsText = ids.length === 1 ? `question ${ids[0]}` : `questions ${ids[0]} and ${ids.length - 1} more`
    const others = missing.length > 1 ? ` (and ${missing.length - 1} more videos: ${missing.slice(1, 4).join(", ")}${missing.length > 4 ? ", …" : ""})` : ""
    return yield* new InferError({
      reason: "TreeMissing",
      message: `${path.join(treesDir, first, "tree.json")}: not found, needed by ${questionsText}${others} — ` +
        `build the tree, fix --trees, or leave the video out with --video-ids / --question-ids`
    })
  }
})

const startOrResume = Effect.fn("Infer.startOrResume")(function*(
  options: BenchmarkOptions<any>,
  config: Readonly<Record<string, unknown>>,
  owner: RunOwner,
  leaseMs: number
) {
  const store = yield* RunStore
  const selection = options.selection === undefined ? undefined : completeSelection(options.selection, options.questions)
  // Continuing a run, or joining one other workers share: the same protocol and question set, or refused.
  const join = (runId: string, flag: string) =>
    Effect.gen(function*() {
      const stored = Option.getOrUndefined(yield* store.getRun(runId))
      // One run, one protocol: a --compare of the two must not be blurred by a run that mixes them.
      const protocol = options.protocol ?? "json"
      if (stored !== undefined && runProtocol(stored.config) !== protocol) {
        return yield* new InferError({
          reason: "BadOption",
          message: `--protocol ${protocol}: run ${stored.runId} was started with --protocol ${
            runProtocol(stored.config)
          } — ${flag === "--resume" ? "resume" : "join"} it with the same protocol`
        })
      }
      const storedSelection = stored?.selection
      if (storedSelection != null && selection !== undefined) {
        const difference = selectionDifference(storedSelection, selection)
        if (difference !== undefined) {
          return yield* new InferError({
            reason: "SelectionChanged",
            message: `${flag}: ${difference} — a run is its question set: ${
              flag === "--resume" ? "resume" : "start every worker of the run"
            } without the selection flags to ask the run's own, or start a new run`
          })
        }
      }
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

/** The options that reach every question, with their defaults applied. */
const questionSettings = (options: BenchmarkOptions<any>) => ({
  ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
  skillMode: options.skillMode ?? "auto",
  verifyVision: options.verifyVision ?? true,
  anchor: options.anchor ?? "off",
  webSearch: options.webSearch ?? false,
  protocol: options.protocol ?? "json"
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
      message: "--max-cost needs prices: set VTREE_<ROLE>_PRICE=input,cached,output (USD per 1M tokens) or pass --prices FILE"
    })
  }
  if (options.questions.length === 0) {
    return new InferError({
      reason: "NoQuestions",
      message: "no questions selected — check --questions and the --video-ids / --question-ids / --task-types / --n-samples filters"
    })
  }
  return undefined
}

/**
 * Checks the options and the trees, starts (or claims, to resume or join) the run as `owner`, fixes
 * its question queue and says where the queue stands.
 */
const prepareRun = Effect.fn("Infer.prepareRun")(function*(
  options: BenchmarkOptions<any>,
  concurrency: number,
  owner: RunOwner,
  leaseMs: number
) {
  const problem = optionProblem(options, concurrency)
  if (problem !== undefined) return yield* problem
  yield* checkRunId(options.runId)
  yield* checkQuestionIds(options.questions)
  yield* checkTrees(options.treesDir, options.questions)
  yield* decodeTrees(options.treesDir, options.questions)
  const path = yield* Path.Path
  const run = yield* startOrResume(options, {
    ...options.config,
    treesDir: path.resolve(options.treesDir),
    questions: options.questions.length,
    concurrency,
    ...questionSettings(options),
    prompts: options.prompts.dir
  }, owner, leaseMs)
  const store = yield* RunStore
  const progress = yield* store.planQuestions(run.runId, options.questions.map((question) => question.questionId), {
    retryErrors: options.retryErrors === true
  })
  // What was open when this worker joined: it sizes the tree cache, not the work (the queue hands that out).
  const finished = yield* store.finishedQuestionIds(run.runId, { exceptErrors: options.retryErrors === true })
  return { runId: run.runId, progress, open: options.questions.filter((question) => !finished.has(question.questionId)) }
})

interface Environments {
  /** The video's tree, loaded by the first question that asks; a load failure is its message. */
  readonly get: (videoId: string) => Effect.Effect<TreeEnvironment, string, FileSystem.FileSystem | Path.Path>
  /** Called once per finished question (got or not): see loadEnvironments for when a tree is dropped. */
  readonly release: (videoId: string) => Effect.Effect<void>
}

/** Trees kept loaded with no question of theirs in flight, for the next claim that may need them. */
const idleTrees = 4

/**
 * One environment per video, loaded by the first question that needs it. A tree is dropped after
 * the last open question of its video (`open`: the run's open questions when this worker joined),
 * or, when other workers share the run and may answer those, once it has sat idle behind
 * `idleTrees` others: a benchmark over hundreds of videos holds only the trees in use.
 */
const loadEnvironments = Effect.fn("Infer.loadEnvironments")(function*(
  runId: string,
  treesDir: string,
  open: ReadonlyArray<Question>
) {
  const store = yield* RunStore
  const buffer = yield* CallBuffer
  const path = yield* Path.Path
  const saveTreeCalls = Effect.flatMap(buffer.drain(null), (calls) =>
    calls.length === 0 ? Effect.void : store.saveRunCalls(runId, calls).pipe(
      // The questions can still run; only the record of the embedding calls is lost.
      Effect.catchAll((error) => Effect.logWarning(`run ${runId}: tree-loading calls not saved: ${error.message}`))
    ))
  const remaining = new Map<string, number>()
  for (const question of open) remaining.set(question.videoId, (remaining.get(question.videoId) ?? 0) + 1)
  const trees = new Map<string, { active: number; get: ReturnType<Environments["get"]> }>()
  const idle: Array<string> = []
  const load = (videoId: string) => {
    const dir = path.join(treesDir, videoId)
    return loadTreeEnvironment(dir).pipe(
      Effect.mapError((error) => `${dir}: ${firstLine(error.message)}`),
      // Embedding a tree belongs to no question: its calls are saved as run-level calls.
      withCallContext({ questionId: null, parentStep: null, usage: null }),
      Effect.exit,
      Effect.tap(() => saveTreeCalls),
      Effect.flatten
    )
  }
  const environments: Environments = {
    get: (videoId) =>
      Effect.flatten(Effect.gen(function*() {
        let entry = trees.get(videoId)
        if (entry === undefined) {
          entry = { active: 0, get: yield* Effect.cached(load(videoId)) }
          trees.set(videoId, entry)
        }
        entry.active += 1
        const at = idle.indexOf(videoId)
        if (at >= 0) idle.splice(at, 1)
        return entry.get
      })),
    release: (videoId) =>
      Effect.sync(() => {
        const left = (remaining.get(videoId) ?? 0) - 1
        remaining.set(videoId, left)
        const entry = trees.get(videoId)
        if (entry === undefined) return
        entry.active = Math.max(0, entry.active - 1)
        if (entry.active > 0) return
        if (left <= 0) return void trees.delete(videoId)
        idle.push(videoId)
        while (idle.length > idleTrees) trees.delete(idle.shift()!)
      })
  }
  return environments
})

/** One question through the agent; never fails but by interruption: a failure is an `error` prediction. */
const answerQuestion = <R>(question: Question, trees: Environments, options: RunQuestionOptions<R>) =>
  Effect.gen(function*() {
    const tree = yield* Effect.either(trees.get(question.videoId))
    if (Either.isLeft(tree)) return { prediction: failedPrediction(question.questionId, tree.left), tree: null }
    const prediction = yield* runQuestion(question, tree.right, options)
    return { prediction, tree: tree.right.index }
  }).pipe(
    withCallContext({ questionId: question.questionId, parentStep: null, usage: null }),
    // runQuestion never fails by contract; a defect in it still must not drop the question.
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.succeed({ prediction: failedPrediction(question.questionId, `internal error: ${describeCause(cause)}`), tree: null })
    )
  )

/** The stored row of one answered question. */
const predictionRow = (
  question: Question,
  answered: { readonly prediction: Prediction; readonly tree: TreeIndex | null },
  calls: ReadonlyArray<CallRecord>,
  startedAt: number,
  finishedAt: number
): PredictionRow => {
  const { prediction, tree } = answered
  // A question that never reached the agent loop has no usage of its own; its calls still count.
  const accounted = Object.values(prediction.usage).some((role) => role.calls > 0)
  const tokens = sumUsage(accounted ? prediction.usage : usageOfCalls(calls))
  return {
    questionId: question.questionId,
    videoId: question.videoId,
    taskType: question.taskType,
    // Directory-form questions carry no duration; the tree knows it.
    duration: question.duration ?? tree?.durationCategory ?? null,
    domain: question.domain,
    question: question.question,
    options: question.options,
    answer: question.answer,
    prediction: prediction.prediction,
    correct: question.answer !== null && prediction.prediction === question.answer,
    evidence: prediction.evidence,
    reasoning: prediction.reasoning,
    stepsUsed: prediction.stepsUsed,
    stopReason: prediction.stopReason,
    error: prediction.error,
    promptTokens: tokens.promptTokens,
    completionTokens: tokens.completionTokens,
    ...tokenDetails(tokens),
    startedAt,
    finishedAt,
    replyShapes: countShapes(prediction.steps)
  }
}

/**
 * Answers one question and saves it with its steps and calls in one transaction. Once it has its
 * answer, saving is not interrupted: Ctrl-C keeps every finished question.
 */
const answerAndSave = <R>(
  runId: string,
  ownerId: string,
  question: Question,
  trees: Environments,
  options: RunQuestionOptions<R>,
  onEvent: (event: BenchmarkEvent) => Effect.Effect<void>
) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      const [answered, calls] = yield* restore(captureCalls(question.questionId)(answerQuestion(question, trees, options)))
      const finishedAt = yield* Clock.currentTimeMillis
      // Not saved: once the setting is fixed, --resume must ask this question again.
      const rejection = configurationRejection(answered.prediction, calls)
      if (rejection !== undefined) {
        return yield* new InferError({
          reason: "ProviderRejected",
          message: `${rejection}; run ${runId} stopped (finished questions are saved: fix the setting and continue with --resume --run-id ${runId})`
        })
      }
      const row = predictionRow(question, answered, calls, startedAt, finishedAt)
      const outcome = yield* (yield* RunStore).saveQuestion(runId, {
        prediction: row,
        steps: answered.prediction.steps.map((step) => ({
          step: step.index,
          tool: step.tool,
          args: step.args,
          output: step.output,
          thought: step.thought,
          reflect: step.reflect,
          plan: step.plan,
          ...(step.replyShapes === undefined ? {} : { replyShapes: step.replyShapes })
        })),
        calls
      }, { ownerId })
      yield* trees.release(question.videoId)
      if (outcome === "taken") {
        // This worker's lease lapsed (a long pause) and another took the question: its answer stands.
        yield* Effect.logWarning(`run ${runId}: question ${question.questionId} was taken over by another worker; its answer is kept, not this one`)
      } else {
        yield* onEvent({ _tag: "QuestionFinished", row, calls: calls.length })
      }
      return { calls, saved: outcome === "saved" }
    })
  )

const failedOnStore = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isFailure(exit) && Option.exists(Cause.failureOption(exit.cause), (error) => error instanceof RunStoreError)

/**
 * Lets go of the run, marking it by how this worker's questions ended when no other worker is still
 * at it; returns the run's status after that (`running` while others work on). A store that cannot
 * say so is logged, not raised (the lease then expires and the run reads as stale).
 */
const releaseRun = (runId: string, ownerId: string, budget: Budget | undefined, exit: Exit.Exit<unknown, unknown>) =>
  Effect.flatMap(RunStore, (store) =>
    store.releaseRun(
      runId,
      ownerId,
      Exit.isSuccess(exit)
        ? budget?.stopped === true ? "budget_stopped" : "completed"
        : Cause.isInterruptedOnly(exit.cause)
        ? "interrupted"
        : "failed"
    )).pipe(
      Effect.map(Option.some),
      Effect.catchAll((error: RunStoreError) =>
        // Lost: the run is someone else's now. A run that failed on the store has said so already.
        error.reason === "ClaimLost" || failedOnStore(exit)
          ? Effect.succeedNone
          : Effect.as(Effect.logError(`could not mark run ${runId} as finished: ${error.message}`), Option.none())
      )
    )

/** The run's budget under `maxCostUsd`, counting what a resumed run already spent. */
const makeBudget = Effect.fn("Infer.makeBudget")(function*(runId: string, options: BenchmarkOptions<any>) {
  if (options.maxCostUsd === undefined) return undefined
  // Prices are known to be there: optionProblem refused the run before it started otherwise.
  const prices = options.prices ?? {}
  const spentBefore = options.resume === true
    ? costOfCalls((yield* (yield* RunStore).loadRun(runId, { includeSteps: false })).calls, prices)
    : 0
  return new Budget(options.maxCostUsd, spentBefore ?? Number.POSITIVE_INFINITY)
})

/**
 * Renews the run's lease every third of its length, for as long as the run works; ends only by
 * failing: `ClaimLost` when another process took the run over (this one must stop writing), or a
 * store that stays unwritable through a few retries.
 */
const heartbeat = (runId: string, ownerId: string, leaseMs: number) =>
  Effect.flatMap(RunStore, (store) =>
    store.renewClaim(runId, ownerId, leaseMs).pipe(
      Effect.retry({
        schedule: Schedule.exponential(Math.max(1, Math.floor(leaseMs / 24))).pipe(Schedule.intersect(Schedule.recurs(3))),
        while: (error) => error.reason !== "ClaimLost"
      }),
      Effect.repeat(Schedule.spaced(Math.max(1, Math.floor(leaseMs / 3)))),
      Effect.zipRight(Effect.never)
    ))

/**
 * On a shared store, reports the whole run's progress every `everyMs` for this worker's display. A
 * failed read skips a report: the heartbeat, not this, is what notices a store that went away.
 */
const watchRun = (runId: string, onEvent: (event: BenchmarkEvent) => Effect.Effect<void>, everyMs: number) =>
  Effect.flatMap(RunStore, (store) => {
    if (store.owners === "one") return Effect.void
    const report = Effect.gen(function*() {
      const run = yield* store.getRun(runId)
      const now = yield* Clock.currentTimeMillis
      if (Option.isNone(run) || run.value.progress == null) return
      const { progress } = run.value
      const live = (run.value.claims ?? []).filter((claim) => claim.expiresAt > now).length
      yield* onEvent({ _tag: "RunProgress", done: progress.done, total: progress.total, workers: Math.max(1, live) })
    }).pipe(Effect.ignore)
    return Effect.forever(Effect.delay(report, everyMs))
  })

/**
 * Runs a benchmark: every selected question through the agent, `concurrency` at a time, each finished
 * question saved in one transaction with its steps and calls. The run's questions are a queue in the
 * store: this process claims a few at a time under its lease (owner, heartbeat, expiry) and saves
 * each once. On a store with one owner per run (SQLite) a second process on the same run is refused
 * while the lease is live and takes a stale run over; on a shared store (PostgreSQL) processes
 * started with the same run id are workers of one run, and a worker that dies leaves its questions
 * to the others once its lease expires. Interrupting it (Ctrl-C) stops new work, interrupts the
 * questions in flight and hands them back; finished questions stay saved, and the last worker out
 * marks the run (`completed`, `interrupted`, …). A question that fails unexpectedly is saved with
 * stop reason `error`. Fails on bad input (InferError, before the run starts), on a run another
 * process holds (RunStoreError `RunLeased`), or when the store cannot be written (the run is marked
 * `failed` when it still can be).
 */
export const runBenchmark = Effect.fn("Infer.runBenchmark")(function*<R = never>(options: BenchmarkOptions<R>) {
  const concurrency = options.concurrency ?? defaultConcurrency
  const owner = options.owner ?? (yield* thisProcess)
  const leaseMs = options.leaseMs ?? defaultLeaseMs
  const { open, progress, runId } = yield* prepareRun(options, concurrency, owner, leaseMs)
  const onEvent = options.onEvent ?? (() => Effect.void)
  const budget = yield* makeBudget(runId, options)
  let answered = 0
  const work = Effect.gen(function*() {
    yield* onEvent({
      _tag: "RunStarted",
      runId,
      resumed: options.resume === true || options.takeover === true,
      total: progress.total,
      alreadyDone: progress.done
    })
    const trees = yield* loadEnvironments(runId, options.treesDir, open)
    const questionOptions: RunQuestionOptions<R> = {
      prompts: options.prompts,
      summaryCache: makeSummaryCache(),
      ...questionSettings(options),
      ...(options.extraTools === undefined ? {} : { extraTools: options.extraTools }),
      ...(options.retrySchedule === undefined ? {} : { retrySchedule: options.retrySchedule })
    }
    const queue = yield* makeWorkQueue({
      runId,
      ownerId: owner.ownerId,
      questions: new Map(options.questions.map((question) => [question.questionId, question])),
      batch: claimBatch(concurrency),
      // Waiting on the last questions other workers hold: their worker's lease expiring (it died) or the
      // run completing ends the wait; asking every second keeps the idle worker's exit that close.
      poll: Math.min(1_000, Math.max(50, Math.floor(leaseMs / 6))),
      stopped: () => budget?.stopped === true
    })
    const answer = (question: Question) =>
      answerAndSave(runId, owner.ownerId, question, trees, questionOptions, onEvent).pipe(
        Effect.tap(({ saved }) => Effect.sync(() => saved && answered++))
      )
    const answerWithin = (question: Question) =>
      budget === undefined
        ? Effect.asVoid(answer(question))
        : Effect.suspend(() =>
          budget.tryStart()
            ? answer(question).pipe(
              Effect.onExit((exit) =>
                Effect.sync(() => budget.finish(Exit.isSuccess(exit) ? costOfCalls(exit.value.calls, options.prices ?? {}) : 0))
              ),
              Effect.asVoid
            )
            : Effect.void
        )
    // `concurrency` fibers, each taking the next question until the queue has none left for this worker.
    const fiber = Effect.gen(function*() {
      while (true) {
        const next = yield* queue.take
        if (Option.isNone(next)) return
        yield* answerWithin(next.value)
      }
    })
    yield* Effect.all(Array.from({ length: concurrency }, () => fiber), { concurrency: "unbounded", discard: true })
  })
  // The heartbeat lives exactly as long as the work: whichever ends first ends the other.
  let status = Option.none<RunStatus>()
  const alongside = Effect.all([
    heartbeat(runId, owner.ownerId, leaseMs),
    watchRun(runId, onEvent, Math.min(5_000, Math.max(1, Math.floor(leaseMs / 3))))
  ], { concurrency: "unbounded", discard: true })
  yield* Effect.raceFirst(work, alongside).pipe(
    // Runs on interruption too (Ctrl-C): the run is handed back, marked, either way.
    Effect.onExit((exit) => Effect.map(releaseRun(runId, owner.ownerId, budget, exit), (released) => (status = released)))
  )
  const result: BenchmarkResult = {
    runId,
    answered,
    skipped: progress.done,
    ...(Option.isSome(status) ? { status: status.value } : {})
  }
  return result
})
