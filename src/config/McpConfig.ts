import { Effect, type Option, type Redacted } from "effect"
import type { ConfigurationError } from "./ConfigurationError.js"
import { load, secret } from "./ConfigVariables.js"

/** `vtree mcp --http`: the bearer token clients must send (required on a non-loopback address). */
export const loadMcpToken: Effect.Effect<Option.Option<Redacted.Redacted<string>>, ConfigurationError> = load(
  Effect.suspend(() => secret("VTREE_MCP_TOKEN"))
)
