import { Either, Schema } from "effect"
import { decodeIssues, issueLine } from "./DecodeIssue.js"

/** What the Search Hub can do; each one is switched on by its own flag. */
export const SearchCapability = Schema.Literal("search.web", "search.news", "search.code")
export type SearchCapability = typeof SearchCapability.Type

export const Capability = Schema.Literal("search.web", "search.news", "search.code", "search.read")
export type Capability = typeof Capability.Type

/** GitHub has three search endpoints; code search alone needs a token, so repositories is the default. */
export const CodeScope = Schema.Literal("repositories", "code", "issues")
export type CodeScope = typeof CodeScope.Type

// The requests below are also the MCP tools' input schemas (JSONSchema.make in cli/McpServe.ts): each
// field's `description` is what clients show to models, and `jsonSchema` states what the trimming
// transformation hides from the generator.
const Trimmed = (field: string, min: number, max: number, description: string) =>
  Schema.Trim.pipe(
    Schema.minLength(min, { message: () => `${field}: must not be empty` }),
    Schema.maxLength(max, { message: () => `${field}: at most ${max} characters — shorten it` })
  ).annotations({ description, jsonSchema: { type: "string", minLength: min, maxLength: max, description } })

/** A whole number in [min, max]; inline in JSON Schema (no `$ref` to a shared Int), as clients expect. */
const WholeBetween = (min: number, max: number, message: string, description: string) =>
  Schema.Number.pipe(
    Schema.int(),
    Schema.between(min, max, { message: () => message, title: `${min} to ${max}`, description })
  )

export const Freshness = Schema.Struct({
  type: Schema.Literal("days").annotations({ description: "The unit of value: days" }),
  value: WholeBetween(1, 3650, "freshness.value: whole days between 1 and 3650", "How many days back")
})
export type Freshness = typeof Freshness.Type

export const SearchRequest = Schema.Struct({
  capability: SearchCapability.annotations({
    description: "search.web: the web; search.news: news articles; search.code: GitHub repositories, code or issues"
  }),
  query: Trimmed("query", 1, 400, "What to search for"),
  language: Schema.optional(Trimmed("language", 2, 35, "Result language, e.g. en or zh (web and news)")),
  region: Schema.optional(Trimmed("region", 2, 35, "Region code, e.g. US, combined with language (web and news)")),
  freshness: Schema.optional(Freshness.annotations({ description: "Only results from the last N days" })),
  scope: Schema.optional(
    CodeScope.annotations({
      description: "search.code only: what to search on GitHub (default repositories; code needs a token)"
    })
  ),
  limit: Schema.optionalWith(
    WholeBetween(1, 20, "limit: a whole number between 1 and 20", "How many results").annotations({ default: 10 }),
    { default: () => 10 }
  )
})
export type SearchRequest = typeof SearchRequest.Type

export const ReadRequest = Schema.Struct({
  url: Trimmed("url", 1, 4096, "An http(s) URL of a public web page"),
  max_chars: Schema.optionalWith(
    WholeBetween(
      1000,
      100000,
      "max_chars: a whole number between 1000 and 100000",
      "Cut the content after this many characters"
    )
      .annotations({ default: 30000 }),
    { default: () => 30000 }
  ),
  include_metadata: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "Add fetch and extraction details", default: false }),
    { default: () => false }
  )
})
export type ReadRequest = typeof ReadRequest.Type

export const SearchResultItem = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("web", "news", "repository", "code", "issue"),
  title: Schema.String,
  url: Schema.String,
  snippet: Schema.String,
  published_at: Schema.NullOr(Schema.String),
  retrieved_at: Schema.String,
  source_name: Schema.String,
  language: Schema.optional(Schema.String),
  provider_rank: Schema.Int,
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type SearchResultItem = typeof SearchResultItem.Type

export const Citation = Schema.Struct({
  citation_id: Schema.String,
  result_id: Schema.String,
  url: Schema.String,
  title: Schema.String
})
export type Citation = typeof Citation.Type

export const SearchResponse = Schema.Struct({
  request_id: Schema.String,
  status: Schema.Literal("success"),
  capability: SearchCapability,
  provider: Schema.String,
  query: Schema.String,
  results: Schema.Array(SearchResultItem),
  citations: Schema.Array(Citation),
  /** Provider-level facts a caller may weigh: unresponsive engines, incomplete results. */
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  timing: Schema.Struct({ duration_ms: Schema.Number })
})
export type SearchResponse = typeof SearchResponse.Type

export const ReadResponse = Schema.Struct({
  request_id: Schema.String,
  status: Schema.Literal("success"),
  capability: Schema.Literal("search.read"),
  url: Schema.String,
  final_url: Schema.String,
  title: Schema.String,
  content: Schema.String,
  content_type: Schema.String,
  content_hash: Schema.String,
  retrieved_at: Schema.String,
  trust_level: Schema.Literal("untrusted_external_content"),
  truncated: Schema.Boolean,
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  timing: Schema.Struct({ duration_ms: Schema.Number })
})
export type ReadResponse = typeof ReadResponse.Type

export const SearchErrorCode = Schema.Literal(
  "INVALID_REQUEST",
  "CAPABILITY_DISABLED",
  "URL_BLOCKED",
  "PROVIDER_TIMEOUT",
  "PROVIDER_RATE_LIMITED",
  "PROVIDER_ERROR",
  // The provider answered, but every engine behind it failed: "no results" is then no fact at all.
  "ALL_ENGINES_FAILED",
  "CONTENT_TOO_LARGE",
  "UNSUPPORTED_CONTENT_TYPE",
  "FETCH_FAILED"
)
export type SearchErrorCode = typeof SearchErrorCode.Type

const retryableCodes: ReadonlySet<SearchErrorCode> = new Set([
  "PROVIDER_TIMEOUT",
  "PROVIDER_RATE_LIMITED",
  "ALL_ENGINES_FAILED",
  "FETCH_FAILED"
])

/** An engine behind a meta-search provider that did not answer, and SearXNG's reason. */
export const FailedEngine = Schema.Struct({ engine: Schema.String, reason: Schema.String })
export type FailedEngine = typeof FailedEngine.Type

/** Whether the same request may succeed later; a blocked URL or a bad request never will. */
export const isRetryableCode = (code: SearchErrorCode): boolean => retryableCodes.has(code)

/**
 * The expected failure of every Search Hub step; `reason` is what callers branch on, and what clients
 * read as the `error.code` of the reply.
 */
export class SearchError extends Schema.TaggedError<SearchError>()("SearchError", {
  reason: SearchErrorCode,
  message: Schema.String,
  retryAfterMs: Schema.optional(Schema.Number),
  /** Overrides the code's default, e.g. a fetch that failed with HTTP 404 will fail again. */
  retryable: Schema.optional(Schema.Boolean),
  /** With ALL_ENGINES_FAILED: which engines failed, and why. */
  failedEngines: Schema.optional(Schema.Array(FailedEngine))
}) {}

export const ErrorResponse = Schema.Struct({
  request_id: Schema.String,
  status: Schema.Literal("error"),
  capability: Schema.optional(Capability),
  error: Schema.Struct({
    code: SearchErrorCode,
    message: Schema.String,
    retryable: Schema.Boolean,
    retry_after_ms: Schema.optional(Schema.Number),
    failed_engines: Schema.optional(Schema.Array(FailedEngine))
  })
})
export type ErrorResponse = typeof ErrorResponse.Type

export type SearchOutcome = SearchResponse | ErrorResponse
export type ReadOutcome = ReadResponse | ErrorResponse

export const errorResponse = (requestId: string, error: SearchError, capability?: Capability): ErrorResponse => ({
  request_id: requestId,
  status: "error",
  ...(capability === undefined ? {} : { capability }),
  error: {
    code: error.reason,
    message: error.message,
    retryable: error.retryable ?? isRetryableCode(error.reason),
    ...(error.retryAfterMs === undefined ? {} : { retry_after_ms: error.retryAfterMs }),
    ...(error.failedEngines === undefined ? {} : { failed_engines: error.failedEngines })
  }
})

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
  return (input: unknown): Either.Either<A, SearchError> =>
    Either.mapLeft(
      decode(input),
      (error) =>
        new SearchError({
          reason: "INVALID_REQUEST",
          message: `${what}: ${decodeIssues(error).map(issueLine).join("; ")} — fix the request and retry`
        })
    )
}

/** Validates an untrusted search request (from MCP or an agent) into a typed one, or INVALID_REQUEST. */
export const decodeSearchRequest = decodeWith(SearchRequest, "external_search")

/** Validates an untrusted read request, or INVALID_REQUEST. */
export const decodeReadRequest = decodeWith(ReadRequest, "external_read")
