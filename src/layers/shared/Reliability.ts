import { Cause, Duration, Effect, FiberRef, Option, Ref, Schedule } from "effect"
import { isRetryable, ProviderError } from "../../domain/ProviderError.js"
import {
  type CallOutcome,
  type CallRole,
  currentCallContext,
  recordCall,
  tokenDetails
} from "../../services/CallLog.js"
import {
  GenAiAttr,
  type GenAiOperation,
  operationAttributes,
  spanName,
  usageAttributes
} from "../../services/GenAiConventions.js"
import type { TokenBreakdown, Usage } from "../../services/LLMProvider.js"
import { retryOnFailure } from "../../services/RetryOnFailure.js"
import {
  annotateSpan,
  annotateSpanIn,
  captureGenAiContent,
  contentText,
  currentCallCost,
  withHotSpan
} from "../../services/Telemetry.js"

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
export const timeoutError = (policy: Pick<ProviderPolicy, "provider" | "timeout">): ProviderError =>
  new ProviderError({
    provider: policy.provider,
    reason: "Timeout",
    message: `${policy.provider}: no reply within ${Duration.format(Duration.decode(policy.timeout))}`
  })

/**
 * Runs one provider call under the whole policy. Each attempt holds a permit of the provider's
 * semaphore (a sleeping retry does not) and has its own timeout; transient failures are retried by
 * `retrySchedule`. An attempt built with `Effect.tryPromise((signal) => …)` has its request aborted
 * when the timeout or an interruption ends it.
 */
export const withPolicy = (policy: ProviderPolicy) => {
  const schedule = retrySchedule(policy.retries, policy.baseDelay)
  return <A>(attempt: Effect.Effect<A, ProviderError>): Effect.Effect<A, ProviderError> =>
    attempt.pipe(
      Effect.timeoutFail({ duration: policy.timeout, onTimeout: () => timeoutError(policy) }),
      policy.semaphore.withPermits(1),
      Effect.tapError((error) =>
        isRetryable(error) && policy.retries > 0
          ? Effect.logWarning("provider attempt failed").pipe(
            Effect.annotateLogs({ provider: policy.provider, reason: error.reason, status: error.status ?? "-" })
          )
          : Effect.void
      ),
      (attempts) => retryOnFailure(attempts, schedule)
    )
}

export interface CallReport {
  readonly role: CallRole
  readonly model: string
  /** Set by the attempts to the endpoint they went to, when the adapter routes among several. */
  readonly servedBy?: Ref.Ref<Option.Option<string>>
  /** Counted up by the attempts, when the adapter counts them: a call that took more than one was retried. */
  readonly attempts?: Ref.Ref<number>
}

/** What a call's GenAI span says beyond its report: who serves it and, when capture is on, what was said. */
export interface CallSpan<A> {
  /** `gen_ai.provider.name`: the API spoken ("openai" for every OpenAI-compatible endpoint), or the engine. */
  readonly provider: string
  /** `gen_ai.response.model`, when the reply names one. */
  readonly responseModel?: (result: A) => string | undefined
  /** Cache writes and counts by modality, when the reply has them (inference spans only). */
  readonly tokenBreakdown?: (result: A) => TokenBreakdown | undefined
  /** The request's messages; built only when content capture is on. */
  readonly input?: () => unknown
  /** The reply's messages; built only when content capture is on. */
  readonly output?: (result: A) => unknown
}

/** The GenAI operation of a role's calls: chat for the text and vision roles, embeddings, else generate_content. */
export const genAiOperation = (role: CallRole): GenAiOperation =>
  role === "embed" ? "embeddings" : role === "ocr" || role === "asr" ? "generate_content" : "chat"

const serverOf = (url: string): Record<string, unknown> => {
  try {
    const parsed = new URL(url)
    return {
      [GenAiAttr.serverAddress]: parsed.hostname,
      ...(parsed.port === "" ? {} : { [GenAiAttr.serverPort]: Number(parsed.port) })
    }
  } catch {
    return {}
  }
}

/**
 * The attributes of a finished call that its GenAI span carries: what the store records of it, under GenAI names,
 * and the reply's token breakdown, which the store does not keep.
 */
const outcomeAttributes = (outcome: CallOutcome, breakdown?: TokenBreakdown): Record<string, unknown> => ({
  ...usageAttributes(genAiOperation(outcome.role), { ...outcome, tokenBreakdown: breakdown }),
  ...(outcome.endpoint === undefined ? {} : serverOf(outcome.endpoint)),
  ...(outcome.attempts === undefined ? {} : { "vtree.attempts": outcome.attempts }),
  ...(outcome.errorReason === null ? {} : { [GenAiAttr.errorType]: outcome.errorReason })
})

/**
 * Reports the call and annotates its span with the same figures (and its cost, when the run has prices).
 * One read of the fiber instead of an effect per FiberRef: this runs at every model call.
 */
const recordAndAnnotate = (outcome: CallOutcome, breakdown?: TokenBreakdown) =>
  Effect.zipRight(
    Effect.withFiberRuntime<void>((fiber) => {
      const cost = fiber.getFiberRef(currentCallCost)
      // Built only when a span records them: with tracing off, neither the attributes nor the cost.
      annotateSpanIn(fiber.getFiberRef(FiberRef.currentContext), () => {
        const usd = cost === null ? null : cost(outcome)
        return {
          ...outcomeAttributes(outcome, breakdown),
          ...(usd === null ? {} : { "vtree.cost_usd": usd })
        }
      })
      return Effect.void
    }),
    recordCall(outcome)
  )

/**
 * Times one logical call (retries included) and reports it through `recordCall`, ok or failed.
 * `tokens` reads the usage off a successful result. The call runs in a GenAI client span,
 * `{operation} {model}` (chat, embeddings, generate_content), carrying what the store records of it.
 */
export const reported = <A>(
  report: CallReport,
  tokens: (result: A) => Usage,
  span: CallSpan<A> = { provider: report.role }
) =>
<R>(call: Effect.Effect<A, ProviderError, R>): Effect.Effect<A, ProviderError, R> =>
  withCallSpan(report, span, reportedCall(report, tokens, span, call))

const withCallSpan = <A, R>(
  report: CallReport,
  span: CallSpan<A>,
  call: Effect.Effect<A, ProviderError, R>
): Effect.Effect<A, ProviderError, R> => {
  const operation = genAiOperation(report.role)
  return Effect.withFiberRuntime((fiber) => {
    const context = fiber.getFiberRef(currentCallContext)
    const { input } = span
    const described = input !== undefined && fiber.getFiberRef(captureGenAiContent)
      ? Effect.zipRight(annotateSpan(() => ({ [GenAiAttr.inputMessages]: contentText(input()) })), call)
      : call
    return withHotSpan(spanName(operation, report.model), () => ({
      kind: "client",
      attributes: {
        ...operationAttributes[operation],
        [GenAiAttr.providerName]: span.provider,
        [GenAiAttr.requestModel]: report.model,
        "vtree.role": report.role,
        ...(context.questionId === null ? {} : { "vtree.question_id": context.questionId }),
        ...(context.parentStep === null ? {} : { "vtree.step": context.parentStep })
      }
    }))(described)
  })
}

/** The replica that served a call and the attempts it took, as the adapter tracked them. */
const trackedOf = (report: CallReport) =>
  Effect.zip(
    report.servedBy === undefined ? Effect.succeedNone : Ref.get(report.servedBy),
    report.attempts === undefined ? Effect.succeedNone : Effect.map(Ref.get(report.attempts), Option.some)
  )

const reportedCall = <A, R>(
  report: CallReport,
  tokens: (result: A) => Usage,
  span: CallSpan<A>,
  call: Effect.Effect<A, ProviderError, R>
): Effect.Effect<A, ProviderError, R> =>
  Effect.clockWith((clock) => {
    const startedAt = clock.unsafeCurrentTimeMillis()
    const { attempts: _attempts, servedBy: _servedBy, ...fields } = report
    return Effect.onExit(call, (exit) =>
      Effect.flatMap(trackedOf(report), ([endpoint, tries]) => {
        const durationMs = clock.unsafeCurrentTimeMillis() - startedAt
        const base = {
          ...fields,
          ...(Option.isSome(endpoint) ? { endpoint: endpoint.value } : {}),
          ...(Option.isSome(tries) ? { attempts: tries.value } : {})
        }
        if (exit._tag === "Success") {
          const usage = tokens(exit.value)
          const result = exit.value
          const described = Effect.withFiberRuntime<void>((fiber) => {
            const context = fiber.getFiberRef(FiberRef.currentContext)
            const responseModel = span.responseModel?.(result)
            if (responseModel !== undefined) annotateSpanIn(context, { [GenAiAttr.responseModel]: responseModel })
            const { output } = span
            if (output !== undefined && fiber.getFiberRef(captureGenAiContent)) {
              annotateSpanIn(context, () => ({ [GenAiAttr.outputMessages]: contentText(output(result)) }))
            }
            return Effect.void
          })
          return Effect.zipRight(
            described,
            recordAndAnnotate({
              ...base,
              startedAt,
              durationMs,
              promptTokens: usage.promptTokens,
              completionTokens: usage.completionTokens,
              ...tokenDetails(usage),
              status: "ok",
              errorReason: null
            }, span.tokenBreakdown?.(result))
          )
        }
        // An interrupted call is not a provider outcome: nothing to record.
        if (Cause.isInterruptedOnly(exit.cause)) {
          return Effect.void
        }
        const failure = Cause.failureOption(exit.cause)
        return recordAndAnnotate({
          ...base,
          startedAt,
          durationMs,
          promptTokens: 0,
          completionTokens: 0,
          status: "error",
          errorReason: Option.isSome(failure) ? failure.value.reason : null
        })
      }))
  })
