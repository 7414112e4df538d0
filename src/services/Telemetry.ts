import { Context, Effect, FiberRef, Option, Tracer } from "effect"
import type { CallOutcome } from "./CallLog.js"
import { agentName, GenAiAttr, operationAttributes, spanName } from "./GenAiConventions.js"

/**
 * What vtree's spans carry beyond their names, following the OpenTelemetry GenAI semantic conventions
 * (GenAiConventions.ts pins the names and the version; see docs/tracing.md). The Layers chosen in cli/
 * (*Layers.ts) decide whether spans are exported at all; with tracing off, these annotations land on spans
 * nobody reads.
 */

/**
 * Whether spans may carry message text, tool arguments and tool results
 * (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). Off unless the tracing Layer turns it on:
 * prompts hold benchmark questions and model replies, which a trace backend need not see.
 */
export const captureGenAiContent: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/**
 * What one call costs in USD at the run's prices, or null when its role has no price. Set by the
 * harness when it has prices, so a `chat` span can say what its call cost.
 */
export const currentCallCost: FiberRef.FiberRef<((call: CallOutcome) => number | null) | null> = FiberRef
  .unsafeMake<((call: CallOutcome) => number | null) | null>(null)

/**
 * The span of a workflow vtree runs (a benchmark run, a tree build), as `Effect.fn` takes it:
 * `Effect.fn(...workflowSpan(workflowNames.infer))(function*() { … })`. Such a run is where a process's
 * invocations start, never inside another one.
 */
export const workflowSpan = (workflow: string): readonly [name: string, options: Tracer.SpanOptions] => [
  spanName("invoke_workflow", workflow),
  {
    attributes: {
      ...operationAttributes.invoke_workflow,
      [GenAiAttr.workflowName]: workflow,
      [GenAiAttr.invocationIsNested]: false
    }
  }
]

const invocations: ReadonlySet<unknown> = new Set(["invoke_workflow", "invoke_agent"])

/** Whether `span` is, or sits inside, an in-process invocation (a workflow or an agent run). */
const withinInvocation = (span: Option.Option<Tracer.AnySpan>): boolean => {
  let at = Option.getOrUndefined(span)
  while (at !== undefined && at._tag === "Span") {
    if (invocations.has(at.attributes.get(GenAiAttr.operationName))) return true
    at = Option.getOrUndefined(at.parent)
  }
  return false
}

const invokeAgentName = spanName("invoke_agent", agentName)

/**
 * The span of one agent run, named as the GenAI conventions name it (`invoke_agent {agent name}`), with
 * `attributes` saying which question and video; the harness and MCP's video_ask both run the agent in one.
 * A question of a benchmark run is nested in the run's workflow; MCP's is not nested in any invocation.
 */
export const withInvokeAgentSpan =
  (attributes: Record<string, unknown>) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Effect.option(Effect.currentSpan), (parent) =>
      withHotSpan(invokeAgentName, {
        attributes: {
          ...operationAttributes.invoke_agent,
          [GenAiAttr.agentName]: agentName,
          [GenAiAttr.invocationIsNested]: withinInvocation(parent),
          ...attributes
        }
      })(effect))

type HotSpanOptions = Omit<Tracer.SpanOptions, "captureStackTrace">

/**
 * `Effect.withSpan` for spans made at every model call, step or tool call. With the tracer off (no tracing
 * asked for) no span is made at all, where `Effect.withSpan` would still make an empty one and run its
 * bookkeeping, and options given as a function (attributes built per call) are not even built; no stack
 * trace is taken for the span (the call site is the same every time).
 */
export const withHotSpan =
  (name: string, options: HotSpanOptions | (() => HotSpanOptions) = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime<A, E, R>((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled)
        ? Effect.withSpan(effect, name, {
          ...(typeof options === "function" ? options() : options),
          captureStackTrace: false
        })
        : effect
    )

/**
 * One search of a video tree as a GenAI `retrieval` span (`retrieval {video id}`), the tree its data source.
 * Never with its query, even with content capture on: an MCP client's `video_search` query is its tool call's
 * argument, which no span carries; the agent's query is on its `execute_tool` span when capture is on.
 */
export const withRetrievalSpan =
  (dataSource: string, topK: number) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    withHotSpan(spanName("retrieval", dataSource), () => ({
      attributes: {
        ...operationAttributes.retrieval,
        [GenAiAttr.dataSourceId]: dataSource,
        [GenAiAttr.retrievalTopK]: topK
      }
    }))(effect)

/**
 * The span `Effect.annotateCurrentSpan` would annotate: the innermost one whose tracer is on. Found without
 * failing: with tracing off there is none, and annotateCurrentSpan then builds (and drops) an exception
 * with a stack trace each time, several times per model call.
 */
const propagatedSpan = (span: Option.Option<Tracer.AnySpan>): Tracer.Span | undefined => {
  while (Option.isSome(span)) {
    if (!Context.get(span.value.context, Tracer.DisablePropagation)) {
      return span.value._tag === "Span" ? span.value : undefined
    }
    if (span.value._tag !== "Span") return undefined
    span = span.value.parent
  }
  return undefined
}

/**
 * `Effect.annotateCurrentSpan` for hot paths: nothing is built when no span records it (tracing off), and
 * attributes given as a function are computed only when one does.
 */
export const annotateSpan = (
  attributes: Record<string, unknown> | (() => Record<string, unknown>)
): Effect.Effect<void> => Effect.contextWith((context: Context.Context<never>) => annotateSpanIn(context, attributes))

/**
 * `annotateSpan` for code that already holds the fiber's context (inside `Effect.withFiberRuntime`): the same
 * rule, done at once instead of as one more effect to run.
 */
export const annotateSpanIn = (
  context: Context.Context<never>,
  attributes: Record<string, unknown> | (() => Record<string, unknown>)
): void => {
  const span = propagatedSpan(Context.getOption(context, Tracer.ParentSpan))
  if (span === undefined) return
  const values = typeof attributes === "function" ? attributes() : attributes
  for (const key in values) span.attribute(key, values[key])
}

/** Attributes set on the current span only when content capture is on; `attributes` is not even built otherwise. */
export const annotateContent = (attributes: () => Record<string, unknown>): Effect.Effect<void> =>
  Effect.flatMap(
    FiberRef.get(captureGenAiContent),
    (capture) => capture ? annotateSpan(attributes) : Effect.void
  )

/** Content as a span attribute value: strings as they are, anything else as JSON. */
export const contentText = (value: unknown): string => typeof value === "string" ? value : JSON.stringify(value)
