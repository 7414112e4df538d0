import { Duration, Effect, RateLimiter } from "effect"
import { type SearchProviderName, SearchSettings } from "../../config/SearchSettings.js"
import { SearchError } from "../../domain/Search.js"
import { type CircuitBreaker, makeCircuitBreaker } from "./CircuitBreaker.js"

const providers: ReadonlyArray<SearchProviderName> = ["searxng", "github", "reader"]

/**
 * What stands between the hub and each provider, once per process: a rate limit (token bucket, requests
 * a minute) and a circuit breaker. Every session of `vtree mcp --http` goes through the same pair, so
 * the limit a provider sees is the process's, not each client's.
 */
export class ProviderGuards extends Effect.Service<ProviderGuards>()("vtree/ProviderGuards", {
  scoped: Effect.gen(function*() {
    const settings = yield* SearchSettings
    // Waiting for the limiter past this leaves too little of the request's budget for the call itself.
    const maxWait = Duration.millis(Duration.toMillis(settings.requestTimeout) / 2)
    const guards = new Map<string, { readonly limiter: RateLimiter.RateLimiter; readonly breaker: CircuitBreaker }>()
    for (const provider of providers) {
      const perMinute = settings.rateLimits[provider]
      guards.set(provider, {
        limiter: yield* RateLimiter.make({ limit: perMinute, interval: "1 minute" }),
        breaker: yield* makeCircuitBreaker(provider, {
          failures: settings.breaker.failures,
          cooldownMs: Duration.toMillis(settings.breaker.cooldown)
        })
      })
    }

    const rateLimited = (provider: SearchProviderName) =>
      new SearchError({
        reason: "PROVIDER_RATE_LIMITED",
        message: `this server's rate limit for ${provider} (${
          settings.rateLimits[provider]
        } requests a minute, shared by every session) is spent — try again in a few seconds`,
        retryAfterMs: Math.ceil(60_000 / settings.rateLimits[provider])
      })

    /** Runs one provider call under the provider's breaker and rate limit. */
    const guard = <A, R>(
      provider: string,
      call: Effect.Effect<A, SearchError, R>
    ): Effect.Effect<A, SearchError, R> => {
      const entry = guards.get(provider)
      if (entry === undefined) return call
      const name = provider as SearchProviderName
      const waitForToken = entry.limiter(Effect.void).pipe(
        Effect.timeoutFail({ duration: maxWait, onTimeout: () => rateLimited(name) })
      )
      return entry.breaker.guard(call, waitForToken)
    }

    /** Each provider's breaker state, for `doctor`-style views and tests. */
    const breakerStates = Effect.all(
      Object.fromEntries([...guards].map(([provider, entry]) => [provider, entry.breaker.state]))
    )

    return { guard, breakerStates } as const
  })
}) {}
