import { Config, type Effect, Option } from "effect"
import { defaultBreakerCalls } from "../services/EndpointBreaker.js"
import type { ConfigurationError } from "./ConfigurationError.js"
import { load, parsed, positiveWhole, text } from "./ConfigVariables.js"

/** `--db` when not given: VTREE_DB_URL (a URL carrying a password is better kept out of shell history), then vtree.db. */
export const defaultDb: Config.Config<string> = text("VTREE_DB_URL").pipe(
  Config.map(Option.getOrElse(() => "vtree.db"))
)

const milliseconds = (name: string) =>
  parsed(name, "a positive whole number of milliseconds", (raw) => {
    const value = positiveWhole(raw)
    return value === undefined ? undefined : Option.some(value)
  }, Option.none<number>())

/** Knobs for tests, documented in the README; unset in real runs. */
export interface TestingKnobs {
  /** The agent's step-level retry waits 20 s then 40 s; with this set, N then 2N milliseconds. */
  readonly stepRetryBaseMs: Option.Option<number>
  /** A run's lease lasts 60 s without a heartbeat; with this set, N milliseconds. */
  readonly leaseMs: Option.Option<number>
}

/** Reads VTREE_STEP_RETRY_BASE_MS and VTREE_LEASE_MS. */
export const loadTestingKnobs: Effect.Effect<TestingKnobs, ConfigurationError> = load(Config.all({
  stepRetryBaseMs: milliseconds("VTREE_STEP_RETRY_BASE_MS"),
  leaseMs: milliseconds("VTREE_LEASE_MS")
}))

/** `VTREE_<ROLE>_PRICE` as written (input,cached,output USD per 1M tokens), when set. */
export const loadPriceText = (role: string): Effect.Effect<Option.Option<string>, ConfigurationError> =>
  load(text(`VTREE_${role.toUpperCase()}_PRICE`))

/**
 * VTREE_BREAKER_CALLS: how many calls in a row may fail to reach one role's endpoints (refused, reset,
 * DNS, TLS, timeouts; retries count) before `infer` stops the run; 0 never stops it.
 */
export const loadBreakerCalls: Effect.Effect<number, ConfigurationError> = load(
  parsed(
    "VTREE_BREAKER_CALLS",
    "a whole number ≥ 0 (0 switches the breaker off)",
    (raw) => (/^\d+$/.test(raw) ? Number(raw) : undefined),
    defaultBreakerCalls
  )
)
