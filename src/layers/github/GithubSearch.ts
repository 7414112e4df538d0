import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Clock, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { SearchSettings } from "../../config/SearchSettings.js"
import { type CodeScope, SearchError } from "../../domain/Search.js"
import { type CodeQuery, CodeSearch, type ProviderHit, type ProviderPage } from "../../services/SearchProviders.js"
import { decodeReply, normalizeDate, providerGet, providerJson, retryAfterMs } from "../shared/ProviderHttp.js"

const NullableString = Schema.optional(Schema.NullOr(Schema.String))

const Repository = Schema.Struct({
  full_name: Schema.String,
  html_url: Schema.String,
  description: NullableString,
  language: NullableString,
  stargazers_count: Schema.optional(Schema.NullOr(Schema.Number)),
  pushed_at: NullableString,
  updated_at: NullableString,
  archived: Schema.optional(Schema.NullOr(Schema.Boolean))
})

const TextMatch = Schema.Struct({ fragment: NullableString, property: NullableString })

const CodeItem = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  html_url: Schema.String,
  repository: Schema.Struct({ full_name: Schema.String }),
  text_matches: Schema.optional(Schema.NullOr(Schema.Array(TextMatch)))
})

const Issue = Schema.Struct({
  title: Schema.String,
  html_url: Schema.String,
  body: NullableString,
  state: NullableString,
  created_at: NullableString,
  updated_at: NullableString,
  comments: Schema.optional(Schema.NullOr(Schema.Number)),
  repository_url: NullableString,
  pull_request: Schema.optional(Schema.NullOr(Schema.Unknown))
})

const Envelope = Schema.Struct({
  total_count: Schema.optional(Schema.NullOr(Schema.Number)),
  incomplete_results: Schema.optional(Schema.NullOr(Schema.Boolean)),
  items: Schema.Array(Schema.Unknown)
})

const snippetOf = (text: string | null | undefined, max = 300): string => {
  const flat = (text ?? "").replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const repoFromApiUrl = (url: string | null | undefined): string => url?.replace(/^.*\/repos\//, "") ?? ""

// One item schema per scope; an item that does not decode is skipped and counted, not fatal.
const hitOf = <A, I>(schema: Schema.Schema<A, I>, toHit: (item: A) => ProviderHit) => {
  const decode = Schema.decodeUnknownOption(schema)
  return (raw: unknown): Option.Option<ProviderHit> => Option.map(decode(raw), toHit)
}

const hitByScope: Record<CodeScope, (raw: unknown) => Option.Option<ProviderHit>> = {
  repositories: hitOf(Repository, (repo) => ({
    type: "repository",
    title: repo.full_name,
    url: repo.html_url,
    snippet: snippetOf(repo.description),
    // A repository has no publication date; its activity dates go to metadata instead.
    publishedAt: null,
    sourceName: "github.com",
    ...(repo.language ? { language: repo.language } : {}),
    metadata: {
      stars: repo.stargazers_count ?? null,
      pushed_at: normalizeDate(repo.pushed_at).iso,
      updated_at: normalizeDate(repo.updated_at).iso,
      archived: repo.archived ?? false
    }
  })),
  code: hitOf(CodeItem, (code) => {
    const fragments = (code.text_matches ?? []).map((m) => m.fragment ?? "").filter((f) => f.trim() !== "")
    return {
      type: "code",
      title: `${code.repository.full_name}: ${code.path}`,
      url: code.html_url,
      snippet: snippetOf(fragments.join(" … "), 500),
      publishedAt: null,
      sourceName: "github.com",
      metadata: { repository: code.repository.full_name, path: code.path, text_matches: fragments.length }
    }
  }),
  issues: hitOf(Issue, (issue) => ({
    type: "issue",
    title: issue.title,
    url: issue.html_url,
    snippet: snippetOf(issue.body),
    publishedAt: normalizeDate(issue.created_at).iso,
    sourceName: "github.com",
    metadata: {
      repository: repoFromApiUrl(issue.repository_url),
      state: issue.state ?? null,
      is_pull_request: issue.pull_request != null,
      comments: issue.comments ?? null,
      updated_at: normalizeDate(issue.updated_at).iso
    }
  }))
}

const decodeEnvelope = decodeReply("GitHub", Envelope)

/** Payload → hits plus the facts worth passing on (incomplete results, skipped items). */
export const parseGithub = (payload: unknown, scope: CodeScope): Either.Either<ProviderPage, SearchError> =>
  Either.map(decodeEnvelope(payload), (envelope) => {
    const hits = envelope.items.flatMap((raw) => Option.toArray(hitByScope[scope](raw)))
    const skipped = envelope.items.length - hits.length
    return {
      hits,
      metadata: {
        scope,
        total_count: envelope.total_count ?? null,
        incomplete_results: envelope.incomplete_results ?? false,
        ...(skipped > 0 ? { skipped_results: skipped } : {})
      }
    }
  })

const isoDay = (millis: number): string => new Date(millis).toISOString().slice(0, 10)

/** The query with its freshness as GitHub filters it (pushed for repositories, updated for issues); code has none. */
const withFreshness = (query: CodeQuery) =>
  Effect.gen(function*() {
    let q = query.query
    let freshnessIgnored = false
    if (query.freshnessDays !== undefined) {
      const since = isoDay((yield* Clock.currentTimeMillis) - query.freshnessDays * 86_400_000)
      if (query.scope === "repositories") q = `${q} pushed:>=${since}`
      else if (query.scope === "issues") q = `${q} updated:>=${since}`
      else freshnessIgnored = true
    }
    return { q, freshnessIgnored }
  })

type Token = Option.Option<Redacted.Redacted<string>>

/** Fails with what an answer other than a 2xx means: a rate limit (and when to retry), a bad token, a bad query. */
const refuseUnlessOk = (response: HttpClientResponse.HttpClientResponse, token: Token) =>
  Effect.gen(function*() {
    const headers = response.headers
    const rateLimited = response.status === 429 ||
      (response.status === 403 && (headers["x-ratelimit-remaining"] === "0" || headers["retry-after"] !== undefined))
    if (rateLimited) {
      const reset = Number(headers["x-ratelimit-reset"])
      const now = yield* Clock.currentTimeMillis
      const after = headers["retry-after"] !== undefined
        ? yield* retryAfterMs(headers["retry-after"])
        : Number.isFinite(reset)
        ? Math.max(0, reset * 1000 - now)
        : undefined
      return yield* Effect.fail(
        new SearchError({
          reason: "PROVIDER_RATE_LIMITED",
          message: `GitHub rate limit reached${
            after === undefined ? "" : `; retry after ${Math.ceil(after / 1000)} s`
          }${Option.isNone(token) ? " — a token (VTREE_SEARCH_GITHUB_TOKEN) raises the limit" : ""}`,
          ...(after === undefined ? {} : { retryAfterMs: after })
        })
      )
    }
    if (response.status === 401) {
      return yield* Effect.fail(
        new SearchError({
          reason: "PROVIDER_ERROR",
          message: "GitHub rejected the token (HTTP 401) — check VTREE_SEARCH_GITHUB_TOKEN"
        })
      )
    }
    if (response.status === 422) {
      return yield* Effect.fail(
        new SearchError({
          reason: "INVALID_REQUEST",
          message: "GitHub could not process this search query (HTTP 422) — simplify the query"
        })
      )
    }
    if (response.status < 200 || response.status >= 300) {
      return yield* Effect.fail(
        new SearchError({ reason: "PROVIDER_ERROR", message: `GitHub answered HTTP ${response.status}` })
      )
    }
  })

/** GitHub REST search: repositories, code (with text-match fragments) and issues. */
export const layer: Layer.Layer<CodeSearch, never, SearchSettings | HttpClient.HttpClient> = Layer.effect(
  CodeSearch,
  Effect.gen(function*() {
    const settings = yield* SearchSettings
    const client = yield* HttpClient.HttpClient
    const search = Effect.fn("GithubSearch.search")(function*(query: CodeQuery) {
      const token = settings.github.token
      if (query.scope === "code" && Option.isNone(token)) {
        return yield* Effect.fail(
          new SearchError({
            reason: "INVALID_REQUEST",
            message:
              "GitHub code search needs a token — set VTREE_SEARCH_GITHUB_TOKEN or search scope repositories/issues"
          })
        )
      }
      const { freshnessIgnored, q } = yield* withFreshness(query)
      const response = yield* providerGet(client, "GitHub", `${settings.github.baseUrl}/search/${query.scope}`, {
        urlParams: { q, per_page: String(query.limit), page: "1" },
        headers: {
          accept: query.scope === "code" ? "application/vnd.github.text-match+json" : "application/vnd.github+json",
          "x-github-api-version": "2022-11-28",
          "user-agent": "vtree-search",
          // The token is unwrapped here, where the request is built, and nowhere else.
          ...(Option.isSome(token) ? { authorization: `Bearer ${Redacted.value(token.value)}` } : {})
        },
        timeout: settings.providerTimeout
      })
      yield* refuseUnlessOk(response, token)
      const payload = yield* providerJson("GitHub", response, settings.providerTimeout)
      const parsed = yield* parseGithub(payload, query.scope)
      return {
        hits: parsed.hits,
        metadata: { ...parsed.metadata, ...(freshnessIgnored ? { freshness_ignored: true } : {}) }
      }
    })
    return CodeSearch.of({ provider: "github", search })
  })
)
