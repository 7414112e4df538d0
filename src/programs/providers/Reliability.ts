import { Cause, Duration, Effect, Option, Schedule } from "effect"
import { isRetryable, ProviderError } from "../../domain/ProviderError.js"
import { type CallRole, recordCall } from "../../services/CallLog.js"

/**
 * The one reliability policy every provider adapter uses: a per-provider concurrency cap, a timeout per
 * attempt, and jittered exponential retries of transient failures that never come sooner than the
 * server's Retry-After.
 */
export interface ProviderPolicy {
  /** Label for errors and logs ("llm", "vlm", "embed", "ocr"). */
  readonly provider: string
  readonly semaphore: Effect.Semaphore
  readonly timeout: Duration.DurationInput
  /** Retries after the first attempt. */
  readonly retries: number
  /** First backoff delay; doubles per retry. */
  readonly baseDelay?: Duration.DurationInput
}

/**
 * Backoff for transient provider errors. Its input is the error, so a RateLimited reply's
 * `retryAfterMs` can stretch the delay: retrying earlier than the server asked only earns another 429.
 */
export const retrySchedule = (
  retries: number,
  baseDelay: Duration.DurationInput = "1 second"
): Schedule.Schedule<[[Duration.Duration, number], ProviderError], ProviderError> =>
  Schedule.exponential(baseDelay).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(retries)),
    // Carries the error into the output so the Retry-After floor below can read it.
    Schedule.intersect(Schedule.identity<ProviderError>()),
    Schedule.whileInput(isRetryable),
    Schedule.modifyDelay(([, error], delay) =>
      error.retryAfterMs !== undefined && Duration.toMillis(delay) < error.retryAfterMs
        ? Duration.millis(error.retryAfterMs)
        : delay
    )
  )

/** The failure of an attempt that outlived the policy's timeout. */
export const timeoutError = (policy: ProviderPolicy): ProviderError =>
  new ProviderError({
    provider: policy.provider,
    reason: "Timeout",
    message: `${policy.provider}: no reply within ${Duration.format(Duration.decode(policy.timeout))}`
  })

/**
 * The policy without its timeout, for attempts that enforce the timeout themselves (Deadlines): each
 * attempt holds a permit of the provider's semaphore (sleeping retries do not), transient failures are
 * retried.
 *
 * The retry machinery (a schedule driver per call) is set up only once an attempt has failed: nearly
 * every call succeeds first time, and at hundreds of calls a second the driver was a measurable cost.
 * The failure that started it is replayed as the first input of the schedule, so the delays and the
 * count are exactly those of `Effect.retry` over the whole call.
 */
export const withRetries = (policy: ProviderPolicy) => <A>(attempt: Effect.Effect<A, ProviderError>): Effect.Effect<A, ProviderError> => {
  const guarded = policy.semaphore.withPermits(1)(attempt)
  const warn = (error: ProviderError) =>
    isRetryable(error) && policy.retries > 0
      ? Effect.logWarning("provider attempt failed").pipe(
        Effect.annotateLogs({ provider: policy.provider, reason: error.reason, status: error.status ?? "-" })
      )
      : Effect.void
  return Effect.catchAll(guarded, (first) => {
    let replayed = false
    const again = Effect.suspend(() => {
      if (replayed) return guarded
      replayed = true
      return Effect.fail(first)
    })
    return Effect.retry(Effect.tapError(again, warn), retrySchedule(policy.retries, policy.baseDelay))
  })
}

/** Runs one provider call under the whole policy: the semaphore, a timeout per attempt, the retries. */
export const withPolicy = (policy: ProviderPolicy) => <A>(attempt: Effect.Effect<A, ProviderError>): Effect.Effect<A, ProviderError> =>
  withRetries(policy)(Effect.timeoutFail(attempt, { duration: policy.timeout, onTimeout: () => timeoutError(policy) }))

export interface CallReport {
  readonly role: CallRole
  readonly model: string
}

/**
 * Times one logical call (retries included) and reports it through `recordCall`, ok or failed.
 * `tokens` reads the usage off a successful result.
 */
export const reported = <A>(
  report: CallReport,
  tokens: (result: A) => { readonly promptTokens: number; readonly completionTokens: number }
) =>
<R>(call: Effect.Effect<A, ProviderError, R>): Effect.Effect<A, ProviderError, R> =>
  Effect.clockWith((clock) => {
    const startedAt = clock.unsafeCurrentTimeMillis()
    return Effect.onExit(call, (exit) => {
      const durationMs = clock.unsafeCurrentTimeMillis() - startedAt
      if (exit._tag === "Success") {
        const usage = tokens(exit.value)
        return recordCall({
          ...report,
          startedAt,
          durationMs,
          promptTokens: usage.promptTokens,
          completionTokens: usage.completionTokens,
          status: "ok",
          errorReason: null
        })
      }
      // An interrupted call is not a provider outcome: nothing to record.
      if (Cause.isInterruptedOnly(exit.cause)) return Effect.void
      const failure = Cause.failureOption(exit.cause)
      return recordCall({
        ...report,
        startedAt,
        durationMs,
        promptTokens: 0,
        completionTokens: 0,
        status: "error",
        errorReason: Option.isSome(failure) ? failure.value.reason : null
      })
    })
  })
