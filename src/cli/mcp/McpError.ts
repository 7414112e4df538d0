import { Schema } from "effect"

/** `vtree mcp` could not start as asked: a flag it cannot use, or an address it cannot listen on. */
export class McpError extends Schema.TaggedError<McpError>()("McpError", {
  reason: Schema.Literal("BadOption", "Listen"),
  message: Schema.String
}) {}
