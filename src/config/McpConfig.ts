import { type Duration, Effect, type Option, type Redacted } from "effect"
import type { ConfigurationError } from "./ConfigurationError.js"
import { load, seconds, secret } from "./ConfigVariables.js"

/** `vtree mcp --http`: the bearer token clients must send (required on a non-loopback address). */
export const loadMcpToken: Effect.Effect<Option.Option<Redacted.Redacted<string>>, ConfigurationError> = load(
  Effect.suspend(() => secret("VTREE_MCP_TOKEN"))
)

/** `vtree mcp --http`: a session with no request for this long ends (its jobs with it); 5 minutes by default. */
export const loadMcpSessionIdle: Effect.Effect<Duration.Duration, ConfigurationError> = load(
  Effect.suspend(() => seconds("VTREE_MCP_SESSION_IDLE", 300))
)

/** `vtree mcp`: how long video_ask waits for its answer before it returns the job id to poll; 45 seconds by default. */
export const loadMcpAskWait: Effect.Effect<Duration.Duration, ConfigurationError> = load(
  Effect.suspend(() => seconds("VTREE_MCP_ASK_WAIT", 45))
)
