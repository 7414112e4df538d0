// One worker's side of a run's question queue: claims a few questions at a time from the store and
// hands them to the worker's fibers one by one. The store decides who gets what (see RunStore's
// claimQuestions), so several workers on one shared run never ask a question twice.
import type { Duration } from "effect"
import { Effect, Option } from "effect"
import type { Question } from "../../domain/Question.js"
import { RunStore, type RunStoreError } from "../../services/RunStore.js"
import { InferError } from "./InferError.js"

export interface WorkQueueOptions {
  readonly runId: string
  readonly ownerId: string
  /** The run's questions by id: the worker's own copy of the set the store's queue holds. */
  readonly questions: ReadonlyMap<string, Question>
  /** Questions claimed per round trip to the store. */
  readonly batch: number
  /** How long to wait before asking again while other workers hold the only open questions. */
  readonly poll: Duration.DurationInput
  /** Checked before each question: true stops handing out work (a budget reached, say). */
  readonly stopped?: () => boolean
}

export interface WorkQueue {
  /**
   * The next question for this worker, or none when the run has nothing left for it: every question
   * done, or held by this worker's own fibers. While other live workers hold open questions it waits
   * (polling), so a worker that dies mid-run has its questions taken over once its lease expires.
   */
  readonly take: Effect.Effect<Option.Option<Question>, InferError | RunStoreError>
}

/** Questions per claim: a small batch, so the queue stays balanced across workers to its end. */
export const claimBatch = (concurrency: number): number => Math.max(1, Math.min(concurrency, 8))

export const makeWorkQueue = Effect.fn("WorkQueue.make")(function*(options: WorkQueueOptions) {
  const store = yield* RunStore
  const lock = yield* Effect.makeSemaphore(1)
  const buffer: Array<Question> = []
  let exhausted = false

  const toQuestion = (questionId: string) => {
    const question = options.questions.get(questionId)
    return question === undefined
      ? Effect.fail(
        new InferError({
          reason: "SelectionChanged",
          message:
            `run ${options.runId}: its queue holds question ${questionId}, which this worker's question set lacks — ` +
            `start every worker of a run with the same --questions and filters (or --resume without them)`
        })
      )
      : Effect.succeed(question)
  }

  const refill: Effect.Effect<void, InferError | RunStoreError> = Effect.gen(function*() {
    while (true) {
      const claim = yield* store.claimQuestions(options.runId, options.ownerId, options.batch)
      if (claim.questionIds.length > 0) {
        for (const question of yield* Effect.forEach(claim.questionIds, toQuestion)) buffer.push(question)
        return
      }
      if (claim.heldByOthers === 0) {
        exhausted = true
        return
      }
      yield* Effect.sleep(options.poll)
    }
  })

  const take = lock.withPermits(1)(Effect.gen(function*() {
    if (options.stopped?.() === true) return Option.none<Question>()
    if (buffer.length === 0 && !exhausted) yield* refill
    return Option.fromNullable(buffer.shift())
  }))
  const queue: WorkQueue = { take }
  return queue
})
