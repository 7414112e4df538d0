import { type Effect } from "effect"
import { defaultOutageSeconds } from "../services/StoreOutage.js"
import type { ConfigurationError } from "./ConfigurationError.js"
import { load, parsed } from "./ConfigVariables.js"

/**
 * VTREE_DB_OUTAGE_SECONDS: how long `vtree infer` keeps retrying claims, heartbeats and saves through a lost
 * database connection (PostgreSQL restarted, a network blip) before the worker stops; 0 stops at the first.
 */
export const loadDbOutageSeconds: Effect.Effect<number, ConfigurationError> = load(
  parsed(
    "VTREE_DB_OUTAGE_SECONDS",
    "a whole number of seconds ≥ 0",
    (raw) => (/^\d+$/.test(raw) ? Number(raw) : undefined),
    defaultOutageSeconds
  )
)
