// `vtree judge`: every open-ended answer of a stored run put to every configured judge, a verdict kept per
// (run, question, judge). A judgement asked before (same question, answer, reference, judge and prompt) is
// taken from the cache and costs no call; a judge that fails or answers without a readable verdict is a
// judge failure, kept and counted, never the end of the run.
import { Clock, Effect, Either, Option } from "effect"
import { costOfCalls, type Prices } from "../../domain/Cost.js"
import { answerTextOf, isOpenEnded, type JudgementRow } from "../../domain/Judgement.js"
import type { PredictionRow } from "../../domain/RunRecord.js"
import { CallBuffer } from "../../services/CallBuffer.js"
import { JudgementStore } from "../../services/JudgementStore.js"
import { type Judge, JudgeProvider } from "../../services/JudgeProvider.js"
import { RunStore } from "../../services/RunStore.js"
import { fillJudgePrompt, judgementKey, type JudgePrompt } from "./JudgePrompt.js"
import { readJudgeReply } from "./JudgeReply.js"

export interface JudgeRunOptions {
  readonly runId: string
  readonly prompt: JudgePrompt
  /** Judgements in flight at once (default 8). */
  readonly concurrency?: number
  /** Per role; the judge's price prices each verdict (unknown without one). */
  readonly prices?: Prices
  /** Told after each judgement: how many are done of how many. */
  readonly onProgress?: (done: number, total: number) => Effect.Effect<void>
}

export interface JudgeRunResult {
  /** Open-ended answers put to the judges. */
  readonly answers: number
  /** Open-ended questions without an answer (or without a reference): nothing to judge. */
  readonly skipped: number
  readonly judgements: number
  /** Judgements that called a judge; the rest came from the cache. */
  readonly called: number
  readonly cached: number
  /** Judgements without a verdict (call failed, reply unreadable). */
  readonly failed: number
}

interface Task {
  readonly prediction: PredictionRow
  readonly reference: string
  readonly answer: string
  readonly judge: Judge
}

/** The open-ended questions of a run that can be judged: answered, with a reference. */
export const judgeable = (predictions: ReadonlyArray<PredictionRow>) => {
  const open = predictions.filter(isOpenEnded)
  const ready = open.flatMap((prediction) => {
    const answer = answerTextOf(prediction)
    return prediction.answer === null || answer === null ? [] : [{ prediction, reference: prediction.answer, answer }]
  })
  return { ready, skipped: open.length - ready.length }
}

const judgeOne = Effect.fnUntraced(function*(task: Task, options: JudgeRunOptions) {
  const store = yield* JudgementStore
  const { judge, prediction } = task
  const cacheKey = judgementKey({
    question: prediction.question,
    answer: task.answer,
    reference: task.reference,
    judgeModel: judge.model,
    promptHash: options.prompt.hash
  })
  const base = { questionId: prediction.questionId, judgeModel: judge.model, cacheKey }
  const hit = yield* store.cached(cacheKey)
  if (Option.isSome(hit)) {
    const row: JudgementRow = {
      ...base,
      verdict: hit.value.verdict,
      reason: hit.value.reason,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
      cached: true,
      judgedAt: yield* Clock.currentTimeMillis
    }
    yield* store.save(options.runId, row)
    return row
  }
  const content = fillJudgePrompt(options.prompt, {
    question: prediction.question,
    reference: task.reference,
    answer: task.answer
  })
  const reply = yield* Effect.either(judge.ask([{ role: "user", content }]))
  const usage = Either.match(reply, {
    onLeft: () => ({ promptTokens: 0, completionTokens: 0 }),
    onRight: (response) => response.usage
  })
  const reading = Either.flatMap(
    Either.mapLeft(reply, (error) => `the judge's call failed: ${error.message}`),
    (response) => readJudgeReply(response.content)
  )
  const row: JudgementRow = {
    ...base,
    verdict: Either.isRight(reading) ? reading.right.verdict : null,
    reason: Either.isRight(reading) ? reading.right.reason : reading.left,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    costUsd: costOfCalls([{ role: "judge", ...usage }], options.prices ?? {}),
    cached: false,
    judgedAt: yield* Clock.currentTimeMillis
  }
  const cache = Either.isRight(reading)
    ? {
      cacheKey,
      judgeModel: judge.model,
      verdict: reading.right.verdict,
      reason: reading.right.reason,
      promptTokens: row.promptTokens,
      completionTokens: row.completionTokens
    }
    : undefined
  yield* store.save(options.runId, row, cache)
  return row
})

/**
 * Judges the run's open-ended answers with every configured judge, `concurrency` at a time, and stores the
 * verdicts and the judges' calls (role "judge", in llm_calls as run-level calls). Re-judging replaces a
 * judge's earlier verdict on a question; other judges' verdicts stay.
 */
export const judgeRun = Effect.fn("JudgeRun.judgeRun")(function*(options: JudgeRunOptions) {
  const runs = yield* RunStore
  const { judges } = yield* JudgeProvider
  const buffer = yield* CallBuffer
  const loaded = yield* runs.loadRun(options.runId, { includeSteps: false })
  const { ready, skipped } = judgeable(loaded.predictions)
  const tasks: ReadonlyArray<Task> = ready.flatMap((item) => judges.map((judge) => ({ ...item, judge })))
  let done = 0
  const rows = yield* Effect.forEach(tasks, (task) =>
    Effect.gen(function*() {
      const row = yield* judgeOne(task, options)
      // Calls are taken as they come, so an interrupted judging keeps the calls its verdicts cost.
      const calls = yield* buffer.drain(null)
      if (calls.length > 0) yield* runs.saveRunCalls(options.runId, calls)
      done += 1
      if (options.onProgress !== undefined) yield* options.onProgress(done, tasks.length)
      return row
    }), { concurrency: options.concurrency ?? 8 })
  return {
    answers: ready.length,
    skipped,
    judgements: rows.length,
    called: rows.filter((row) => !row.cached).length,
    cached: rows.filter((row) => row.cached).length,
    failed: rows.filter((row) => row.verdict === null).length
  } satisfies JudgeRunResult
})
