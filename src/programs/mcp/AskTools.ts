import { Clock, Duration, Effect, Either, Fiber, FiberSet, Option, ParseResult, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { answerTextOf } from "../../domain/Answer.js"
import { AnswerForm } from "../../domain/AnswerForm.js"
import type { Prediction } from "../../domain/Prediction.js"
import { agentDefaults, agentSettings } from "../../domain/RunConfig.js"
import type { LLMProvider } from "../../services/LLMProvider.js"
import { withInvokeAgentSpan } from "../../services/Telemetry.js"
import type { VLMProvider } from "../../services/VLMProvider.js"
import { AgentObserver, makeObserver } from "../agent/Observer.js"
import { runQuestion } from "../agent/RunQuestion.js"
import type { PromptManager } from "../prompts/PromptManager.js"
import { type CallContext, jsonReply, type McpTool, type ToolReply, toolSchema } from "./McpTool.js"
import { capText } from "./ResultCaps.js"
import type { VideoLibrary } from "./VideoLibrary.js"

/**
 * video_ask runs vtree's agent on one question over one tree, as a job: the call waits for the answer up
 * to its wait (VTREE_MCP_ASK_WAIT, 45 s by default: hosts cut a call at about 4 minutes, progress or not),
 * then returns the job id with the steps done so far, to poll with video_ask_result; `wait: false` returns
 * it at once. Jobs are bounded: a few run at once
 * (the rest wait their turn), a fixed number are kept, a finished one is dropped after an hour. A job
 * belongs to the session that started it: a session runs fewer at once and holds fewer than the server
 * (one client cannot take every turn), and its jobs are cancelled when it ends or by video_ask_cancel.
 */
export const askLimits = {
  concurrentRuns: 4,
  maxJobs: 64,
  jobTtlMs: 60 * 60 * 1000,
  sessionRuns: 2,
  sessionJobs: 16
} as const

const AskInput = Schema.Struct({
  video_id: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "A video id from video_list" }),
  question: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000)).annotations({
    description: "The question about the video (at most 4000 characters)"
  }),
  options: Schema.optional(
    Schema.Struct({
      choices: Schema.optional(
        Schema.Array(Schema.String).pipe(Schema.maxItems(26)).annotations({
          description:
            `Multiple-choice options as "A. …", "B. …"; the answer is then a letter. Left out or []: an open question, answered in words`
        })
      ),
      max_steps: Schema.optional(
        Schema.Int.pipe(Schema.between(1, 50)).annotations({
          description: `The agent's step budget, 1 to 50; ${agentDefaults.maxSteps} by default`
        })
      ),
      wait: Schema.optional(Schema.Boolean.annotations({
        description:
          "false: return a job id at once and poll video_ask_result; by default the call waits for the answer up to " +
          "the server's limit (45 s unless set), then returns the job id"
      }))
    }).annotations({ description: "Choices, step budget and waiting; all optional" })
  )
})

const TrajectoryStep = Schema.Struct({
  step: Schema.Number,
  tool: Schema.String,
  args: Schema.String,
  result: Schema.String
})

const AskOutput = Schema.Struct({
  job_id: Schema.NullOr(Schema.String),
  status: Schema.Literal("running", "finished"),
  steps_done: Schema.Number,
  answer: Schema.NullOr(Schema.String).annotations({
    description: "The agent's answer as written, whole: free text for an open question"
  }),
  option: Schema.NullOr(Schema.String).annotations({
    description: "The option letter read from the answer; null for an open question"
  }),
  evidence: Schema.NullOr(Schema.String),
  reasoning: Schema.NullOr(Schema.String),
  stop_reason: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  trajectory: Schema.Array(TrajectoryStep),
  answer_form: Schema.NullOr(AnswerForm).annotations({
    description: "How the answer read: clean, extracted, invalid, empty, or free (an open question's)"
  })
})
type AskOutput = typeof AskOutput.Type

const ResultInput = Schema.Struct({
  job_id: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "The job id video_ask returned" })
})
const CancelOutput = Schema.Struct({
  job_id: Schema.String,
  cancelled: Schema.Boolean.annotations({
    description: "false: the job had already finished (it is dropped all the same)"
  })
})

const oneLine = (text: string, max: number) => capText(text.replace(/\s+/g, " ").trim(), max).text

const finished = (jobId: string | null, prediction: Prediction, optionCount: number): AskOutput => ({
  job_id: jobId,
  status: "finished",
  steps_done: prediction.stepsUsed,
  answer: prediction.answer,
  option: prediction.prediction,
  evidence: prediction.evidence === null ? null : capText(prediction.evidence, 4000).text,
  reasoning: prediction.reasoning === null ? null : capText(prediction.reasoning, 4000).text,
  stop_reason: prediction.stopReason,
  error: prediction.error,
  trajectory: prediction.steps.map((step) => ({
    step: step.index,
    tool: step.tool,
    args: oneLine(JSON.stringify(step.args), 200),
    result: oneLine(step.output, 300)
  })),
  answer_form: answerTextOf(prediction.answer, optionCount).answerForm
})

const runningOutput = (jobId: string, stepsDone: number): AskOutput => ({
  job_id: jobId,
  status: "running",
  steps_done: stepsDone,
  answer: null,
  option: null,
  evidence: null,
  reasoning: null,
  stop_reason: null,
  error: null,
  trajectory: [],
  answer_form: null
})

const failure = (code: string, message: string): ToolReply => ({
  content: [{ type: "text", text: `${code}: ${message}` }],
  isError: true
})

interface Job {
  readonly videoId: string
  readonly session: string
  fiber: Fiber.RuntimeFiber<void> | undefined
  stepsDone: number
  result: AskOutput | undefined
  /** Why the run failed (an unreadable tree, a model that kept failing), as the call that waited replies. */
  failure: ToolReply | undefined
  finishedAt: number | undefined
}

export interface AskToolOptions {
  readonly library: VideoLibrary
  readonly prompts: PromptManager
  /** An agent model is configured; without one video_ask refuses, saying what to set. */
  readonly enabled: boolean
  /** How long video_ask waits for the answer before it returns the job id (VTREE_MCP_ASK_WAIT). */
  readonly wait: Duration.Duration
}

const decodeAsk = Schema.decodeUnknownEither(AskInput, { errors: "all", onExcessProperty: "error" })
const decodeResult = Schema.decodeUnknownEither(ResultInput, { errors: "all", onExcessProperty: "error" })

/** The job id a poll or a cancel names, or the INVALID_ARGUMENTS reply that tool gives. */
const jobIdOf = (tool: string, args: unknown) =>
  Either.mapBoth(decodeResult(args), {
    onLeft: (error) => failure("INVALID_ARGUMENTS", `${tool}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`),
    onRight: (input) => input.job_id
  })

type OnStep = (done: number, max: number, tool: string) => Effect.Effect<void>

/** A semaphore per session (its share of the runs), made when the session first asks, dropped when it ends. */
const makeSessionRuns = () => {
  const bySession = new Map<string, Effect.Semaphore>()
  return {
    of: (session: string): Effect.Semaphore => {
      let runs = bySession.get(session)
      if (runs === undefined) {
        runs = Effect.unsafeMakeSemaphore(askLimits.sessionRuns)
        bySession.set(session, runs)
      }
      return runs
    },
    end: (session: string) => void bySession.delete(session)
  }
}

type SessionRuns = ReturnType<typeof makeSessionRuns>

/** One question through the agent over the video's tree, under one of its session's and one of the `runs` permits. */
const askWith = (options: AskToolOptions, runs: Effect.Semaphore, sessionRuns: SessionRuns) =>
(
  input: typeof AskInput.Type,
  session: string,
  onStep: OnStep
) =>
  Effect.gen(function*() {
    const tree = yield* options.library.tree(input.video_id)
    // The agent's own settings, the step budget as asked (else the run record's default).
    const settings = agentSettings({ maxSteps: input.options?.max_steps })
    const observer = makeObserver({ afterStep: (_, step) => onStep(step.index, settings.maxSteps, step.tool) })
    const questionId = `mcp-${randomUUID()}`
    return yield* sessionRuns.of(session).withPermits(1)(
      runs.withPermits(1)(
        runQuestion(
          { questionId, question: input.question, options: input.options?.choices ?? [] },
          tree,
          { prompts: options.prompts, ...settings }
        ).pipe(
          Effect.provideService(AgentObserver, observer),
          Effect.tap((prediction) =>
            Effect.annotateCurrentSpan({
              "vtree.stop_reason": prediction.stopReason,
              "vtree.steps_used": prediction.stepsUsed
            })
          ),
          // The question's text is message content: it reaches spans only through content capture.
          withInvokeAgentSpan({ "vtree.question_id": questionId, "vtree.video_id": input.video_id })
        )
      )
    )
  })

type Ask = ReturnType<typeof askWith>

/** The jobs kept for video_ask_result: finished ones past their age are dropped; when full of running jobs, none is added. */
const makeJobs = () => {
  const jobs = new Map<string, Job>()
  const prune = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    for (const [id, job] of jobs) {
      if (job.finishedAt !== undefined && now - job.finishedAt > askLimits.jobTtlMs) jobs.delete(id)
    }
    if (jobs.size < askLimits.maxJobs) return true
    const oldestFinished = [...jobs].filter(([, job]) => job.finishedAt !== undefined)
      .sort(([, a], [, b]) => a.finishedAt! - b.finishedAt!)[0]
    if (oldestFinished === undefined) return false
    jobs.delete(oldestFinished[0])
    return true
  })
  return { jobs, prune }
}

type Jobs = ReturnType<typeof makeJobs>

/**
 * A job forked into `background`, its result kept for video_ask_result; its id, or the reply refusing it.
 * `progress` hears each step while the call that started it still waits.
 */
const startJob = (
  input: typeof AskInput.Type,
  session: string,
  ask: Ask,
  { jobs, prune }: Jobs,
  background: FiberSet.FiberSet,
  progress: OnStep
) =>
  Effect.gen(function*() {
    const running = [...jobs.values()].filter((job) => job.session === session && job.finishedAt === undefined)
    if (running.length >= askLimits.sessionJobs) {
      return Either.left(failure(
        "TOO_MANY_JOBS",
        `this session has ${askLimits.sessionJobs} jobs running; wait for one or cancel one with video_ask_cancel`
      ))
    }
    if (!(yield* prune)) {
      return Either.left(failure("TOO_MANY_JOBS", `${askLimits.maxJobs} jobs are running; wait for one to finish`))
    }
    const jobId = randomUUID()
    const job: Job = {
      videoId: input.video_id,
      session,
      fiber: undefined,
      stepsDone: 0,
      result: undefined,
      failure: undefined,
      finishedAt: undefined
    }
    jobs.set(jobId, job)
    const onStep: OnStep = (done, max, tool) =>
      Effect.zipRight(Effect.sync(() => void (job.stepsDone = done)), progress(done, max, tool))
    const work = ask(input, session, onStep).pipe(
      Effect.either,
      Effect.flatMap((outcome) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          job.finishedAt = now
          if (Either.isLeft(outcome)) job.failure = failure(outcome.left.reason, outcome.left.message)
          job.result = Either.isRight(outcome)
            ? finished(jobId, outcome.right, input.options?.choices?.length ?? 0)
            : { ...runningOutput(jobId, job.stepsDone), status: "finished", error: outcome.left.message }
        })
      )
    )
    const fiber = yield* FiberSet.run(background, work)
    job.fiber = fiber
    return Either.right({ jobId, job, fiber })
  })

/**
 * Starts the job and waits for it up to `wait`: its answer when it finishes in time, else its id with the
 * steps done so far. Cancelling the call cancels the job; the job outlives a call that stopped waiting.
 */
const askAndWait = (
  context: CallContext,
  wait: Duration.Duration,
  start: (progress: OnStep) => ReturnType<typeof startJob>,
  jobs: Jobs
) =>
  Effect.gen(function*() {
    let waiting = true
    const started = yield* start((done, max, tool) =>
      waiting ? context.progress(done, max, `step ${done}: ${tool}`) : Effect.void
    )
    if (Either.isLeft(started)) return started.left
    const { fiber, job, jobId } = started.right
    const ended = Duration.toMillis(wait) <= 0 ? Option.none() : yield* Fiber.await(fiber).pipe(
      Effect.timeoutOption(wait),
      Effect.onInterrupt(() => Effect.zipRight(Effect.sync(() => jobs.jobs.delete(jobId)), Fiber.interrupt(fiber)))
    )
    waiting = false
    if (Option.isNone(ended) || job.result === undefined) return jsonReply(runningOutput(jobId, job.stepsDone))
    // Answered within the wait, as before jobs: no job id to poll, a failed run an error reply.
    jobs.jobs.delete(jobId)
    return job.failure ?? jsonReply({ ...job.result, job_id: null })
  })

const videoAskTool = (
  options: AskToolOptions,
  ask: Ask,
  jobs: Jobs,
  background: FiberSet.FiberSet,
  sessionRuns: SessionRuns
): McpTool<LLMProvider | VLMProvider> => ({
  name: "video_ask",
  description:
    "Ask vtree's agent a question about a video: it browses the tree, reads nodes and looks at frames, then answers " +
    "with evidence: an option letter with options.choices, else (an open question) an answer in words. Takes " +
    "minutes; sends progress per step. Waits for the answer up to the server's limit (45 s unless set), then " +
    "returns a job id with the steps done: poll video_ask_result. With options.wait false, returns the job id at once.",
  annotations: {
    title: "Ask the video agent",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true
  },
  inputSchema: toolSchema(AskInput),
  outputSchema: toolSchema(AskOutput),
  endSession: (session) =>
    Effect.gen(function*() {
      const ended = [...jobs.jobs].filter(([, job]) => job.session === session)
      for (const [id] of ended) jobs.jobs.delete(id)
      yield* Fiber.interruptAll(ended.flatMap(([, job]) => job.fiber === undefined ? [] : [job.fiber]))
      sessionRuns.end(session)
    }),
  call: (args, context: CallContext) =>
    Effect.gen(function*() {
      const decoded = decodeAsk(args)
      if (Either.isLeft(decoded)) {
        return failure("INVALID_ARGUMENTS", `video_ask: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
      }
      const input = decoded.right
      if (!options.enabled) {
        return failure("NO_MODEL", "video_ask needs an agent model: set VTREE_LLM_BASE_URL and VTREE_LLM_MODEL")
      }
      const known = yield* Effect.either(options.library.tree(input.video_id))
      if (Either.isLeft(known)) return failure(known.left.reason, known.left.message)
      const session = context.session ?? ""
      const start = (progress: OnStep) => startJob(input, session, ask, jobs, background, progress)
      return yield* askAndWait(
        context,
        input.options?.wait === false ? Duration.zero : options.wait,
        start,
        jobs
      )
    })
})

const videoAskResultTool = ({ jobs, prune }: Jobs): McpTool => ({
  name: "video_ask_result",
  description:
    "The state of a video_ask job: running (with steps done), or the answer with evidence and a trajectory summary.",
  annotations: {
    title: "Poll a video_ask job",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  inputSchema: toolSchema(ResultInput),
  outputSchema: toolSchema(AskOutput),
  call: (args) =>
    Effect.gen(function*() {
      const jobId = jobIdOf("video_ask_result", args)
      if (Either.isLeft(jobId)) return jobId.left
      yield* prune
      const job = jobs.get(jobId.right)
      if (job === undefined) {
        return failure("UNKNOWN_JOB", `no job "${jobId.right}" (jobs are kept an hour after they finish)`)
      }
      return jsonReply(job.result ?? runningOutput(jobId.right, job.stepsDone))
    })
})

const videoAskCancelTool = ({ jobs }: Jobs): McpTool => ({
  name: "video_ask_cancel",
  description: "Cancel a running video_ask job (started with wait: false); its model calls stop at once.",
  annotations: {
    title: "Cancel a video_ask job",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  inputSchema: toolSchema(ResultInput),
  outputSchema: toolSchema(CancelOutput),
  call: (args) =>
    Effect.gen(function*() {
      const named = jobIdOf("video_ask_cancel", args)
      if (Either.isLeft(named)) return named.left
      const jobId = named.right
      const job = jobs.get(jobId)
      if (job === undefined) return failure("UNKNOWN_JOB", `no job "${jobId}"`)
      jobs.delete(jobId)
      const wasRunning = job.finishedAt === undefined
      if (job.fiber !== undefined) yield* Fiber.interrupt(job.fiber)
      return jsonReply({ job_id: jobId, cancelled: wasRunning })
    })
})

/**
 * video_ask, video_ask_result and video_ask_cancel; jobs are forked into the scope these tools are made in
 * (the server's), and a session's jobs end with the session.
 */
export const makeAskTools = Effect.fn("AskTools.make")(function*(options: AskToolOptions) {
  const runs = yield* Effect.makeSemaphore(askLimits.concurrentRuns)
  const sessionRuns = makeSessionRuns()
  const background = yield* FiberSet.make()
  const jobs = makeJobs()
  return [
    videoAskTool(options, askWith(options, runs, sessionRuns), jobs, background, sessionRuns),
    videoAskResultTool(jobs),
    videoAskCancelTool(jobs)
  ] as const
})
