import { Console, Context, Effect, Layer } from "effect"

/**
 * One Search Hub request as an operator sees it (DESIGN §9): what happened, never what was asked — no
 * query, no URL, no secret. `cache` says whether the reply came from the shared cache; `reader` is the
 * reader's extraction path (readability or plain text) for search.read.
 */
export interface SearchRequestMetrics {
  readonly event: "search.request"
  readonly request_id: string
  readonly capability: string
  readonly provider: string
  readonly status: "success" | "error"
  readonly code?: string
  readonly duration_ms: number
  readonly count: number
  readonly truncated: boolean
  readonly cache: "hit" | "miss" | "off"
  readonly reader?: string
}

type Sink = { readonly record: (metrics: SearchRequestMetrics) => Effect.Effect<void> }

/** An info log line with the metrics as annotations: what an embedding app's logger shows. */
const asLog: Sink = {
  record: ({ event, ...fields }) => Effect.logInfo(event).pipe(Effect.annotateLogs(fields))
}

/**
 * Where the hub's request metrics go: by default an info log line each (a run's quiet logger hides
 * them); `jsonLines` writes one JSON object a line on stderr, what `vtree mcp` does for its operators.
 */
export class SearchMetrics extends Context.Reference<SearchMetrics>()("vtree/SearchMetrics", {
  defaultValue: (): Sink => asLog
}) {
  /** One JSON line per request through the Console's error stream (stderr in the CLI). */
  static readonly jsonLines: Layer.Layer<SearchMetrics> = Layer.succeed(SearchMetrics, {
    record: (metrics) => Console.error(JSON.stringify(metrics))
  })
}
