// How calls reach llm_calls: the CallLog the CLI provides (layers/memory/MemoryCallBuffer.ts) only
// buffers, in memory, per question id. The harness takes a question's calls when the question ends
// and hands them to RunStore.saveQuestion, so they are committed in the same transaction as the
// prediction and steps — a question killed half-way leaves no orphan calls, and `--resume` re-runs it
// cleanly. Calls outside any question (questionId null, e.g. embedding a tree on load) are taken with
// `drain(null)` and written with RunStore.saveRunCalls. Writing each call as it happens was rejected:
// it would split a question's record across many transactions and hold the single SQLite connection
// at every model call.
import type { Effect as EffectType } from "effect"
import { Context, Effect, Exit } from "effect"
import type { CallRecord, ReportedCall } from "./CallLog.js"

export interface CallBufferShape {
  /** Buffers a question role's call; others (speech-to-text, which serves the builder) have no llm_calls row. */
  readonly record: (call: ReportedCall) => EffectType.Effect<void>
  /** Removes and returns the calls buffered for `questionId`, in the order they were recorded. */
  readonly drain: (questionId: string | null) => EffectType.Effect<ReadonlyArray<CallRecord>>
  /** Calls held across all questions; stays bounded when every question is drained or captured. */
  readonly pending: EffectType.Effect<number>
}

export class CallBuffer extends Context.Tag("vtree/CallBuffer")<CallBuffer, CallBufferShape>() {}

/**
 * Runs one question's effect and returns its result with the calls it made. The question's buffer is
 * emptied however the effect ends, so failed or interrupted questions leave nothing behind. The effect
 * must run with `withCallContext({ questionId })` (inside or around it) for its calls to be attributed.
 */
export const captureCalls = (questionId: string) =>
<A, E, R>(
  effect: EffectType.Effect<A, E, R>
): EffectType.Effect<readonly [A, ReadonlyArray<CallRecord>], E, R | CallBuffer> =>
  Effect.flatMap(
    CallBuffer,
    (buffer) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Effect.exit(restore(effect)), (exit) =>
          Effect.flatMap(buffer.drain(questionId), (calls) =>
            Exit.isSuccess(exit)
              ? Effect.succeed<readonly [A, ReadonlyArray<CallRecord>]>([exit.value, calls])
              : Effect.failCause(exit.cause)))
      )
  )
