import { Effect, Either, ParseResult, Schema } from "effect"
import type { TreeNode } from "../../domain/TreeIndex.js"
import { nodeSummary } from "../tree/NodeText.js"
import { type JsonObject, type McpTool, type ToolReply, toolSchema } from "./McpTool.js"
import { capText, resultLimits } from "./ResultCaps.js"
import type { LibraryError } from "./VideoLibrary.js"

// What every video tool shares: how times and nodes are written, the read-only annotations, and the
// definition that decodes arguments and turns library failures into error replies.

/** Seconds as `h:mm:ss` (or `h:mm:ss.s` when a tenth matters), as people read video times. */
export const clock = (seconds: number): string => {
  const tenths = Math.max(0, Math.round(seconds * 10))
  const whole = Math.floor(tenths / 10)
  const h = Math.floor(whole / 3600)
  const m = Math.floor((whole % 3600) / 60)
  const s = whole % 60
  const base = `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`
  return tenths % 10 === 0 ? base : `${base}.${tenths % 10}`
}

/** The text fields a tool fills are cut to this many characters (the result's own cap is larger). */
export const fieldBudget = resultLimits.maxTextChars / 2

export const VideoId = Schema.String.pipe(Schema.minLength(1)).annotations({
  description: "A video id from video_list"
})
export const NodeId = Schema.String.pipe(Schema.minLength(1)).annotations({
  description: "A node id from video_overview, video_search or video_view_node"
})
export const Clock = Schema.String.annotations({ description: "h:mm:ss" })
export const Level = Schema.Literal(1, 2, 3).annotations({ description: "1 scene, 2 event, 3 frame" })

export const NodeBrief = Schema.Struct({
  node_id: Schema.String,
  level: Level,
  start: Clock,
  end: Clock,
  summary: Schema.String
})

export const readOnly = (title: string) => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
})

export const failure = (code: string, message: string): ToolReply => ({
  content: [{ type: "text", text: `${code}: ${message}` }],
  isError: true
})

export const fromLibraryError = (error: LibraryError) => failure(error.reason, error.message)

/** A tool whose arguments are decoded with `input`; bad arguments are an error reply naming the field. */
export const defineVideoTool = <A, I, R>(spec: {
  readonly name: string
  readonly description: string
  readonly title: string
  readonly input: Schema.Schema<A, I, never>
  readonly output: Schema.Schema<any, any, never>
  readonly run: (args: A) => Effect.Effect<ToolReply, LibraryError, R>
  readonly meta?: JsonObject
}): McpTool<R> => {
  const decode = Schema.decodeUnknownEither(spec.input, { errors: "all", onExcessProperty: "error" })
  return {
    name: spec.name,
    description: spec.description,
    annotations: readOnly(spec.title),
    inputSchema: toolSchema(spec.input),
    outputSchema: toolSchema(spec.output),
    ...(spec.meta === undefined ? {} : { meta: spec.meta }),
    call: (args) =>
      Either.match(decode(args), {
        onLeft: (error) =>
          Effect.succeed(
            failure("INVALID_ARGUMENTS", `${spec.name}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
          ),
        onRight: (decoded) =>
          spec.run(decoded).pipe(Effect.catchAll((error) => Effect.succeed(fromLibraryError(error))))
      })
  }
}

export const brief = (node: TreeNode) => ({
  node_id: node.id,
  level: node.level,
  start: clock(node.timeRange[0]),
  end: clock(node.timeRange[1]),
  summary: capText(nodeSummary(node, 160).replace(/\s+/g, " ").trim(), 300).text
})

export const has = (value: string) => value.trim() !== ""
