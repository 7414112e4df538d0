import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Clock, Duration, Effect, Either, Schema, Stream } from "effect"
import { firstDecodeIssue, issueLine } from "../../domain/DecodeIssue.js"
import { SearchError } from "../../domain/Search.js"

/**
 * The GET that the search adapters share: one attempt under the provider timeout, transport failures
 * and timeouts mapped to Search Hub codes. Status handling stays with each adapter (each API words
 * its refusals differently).
 */
export const providerGet = (
  client: HttpClient.HttpClient,
  provider: string,
  url: string,
  options: {
    readonly headers?: Record<string, string>
    readonly urlParams?: Record<string, string>
    readonly timeout: Duration.Duration
  }
): Effect.Effect<HttpClientResponse.HttpClientResponse, SearchError> =>
  client.get(url, { headers: options.headers ?? {}, urlParams: options.urlParams ?? {} }).pipe(
    Effect.mapError(() =>
      new SearchError({
        reason: "PROVIDER_ERROR",
        message: `${provider} could not be reached — check that it is running and its URL is right`
      })
    ),
    Effect.timeoutFail({
      duration: options.timeout,
      onTimeout: () =>
        new SearchError({
          reason: "PROVIDER_TIMEOUT",
          message: `${provider} did not answer within ${Duration.format(options.timeout)}`
        })
    })
  )

/**
 * The most a search provider's reply may hold once decompressed. SearXNG's and GitHub's pages of
 * results are tens of KB; without a cap a 400 KB gzip reply inflated to 1.3 GB per search.
 */
export const maxProviderReplyBytes = 8 * 1024 * 1024

/**
 * Reads a JSON body under the same timeout, counting the bytes as they are inflated and stopping past
 * `maxProviderReplyBytes` (CONTENT_TOO_LARGE) before anything is decoded; a body that is no JSON is the
 * provider's fault.
 */
export const providerJson = (
  provider: string,
  response: HttpClientResponse.HttpClientResponse,
  timeout: Duration.Duration
): Effect.Effect<unknown, SearchError> =>
  response.stream.pipe(
    Stream.mapError(() =>
      new SearchError({ reason: "PROVIDER_ERROR", message: `${provider}'s answer broke off — try again` })
    ),
    Stream.runFoldEffect({ chunks: [] as Array<Uint8Array>, bytes: 0 }, (body, chunk) => {
      const bytes = body.bytes + chunk.length
      if (bytes > maxProviderReplyBytes) {
        return Effect.fail(
          new SearchError({
            reason: "CONTENT_TOO_LARGE",
            message: `${provider} sent more than ${
              maxProviderReplyBytes / 1024 / 1024
            } MiB (decompressed) — check the server, or ask for fewer results`
          })
        )
      }
      body.chunks.push(chunk)
      return Effect.succeed({ chunks: body.chunks, bytes })
    }),
    Effect.flatMap((body) =>
      Effect.try({
        try: () => JSON.parse(Buffer.concat(body.chunks, body.bytes).toString("utf8")) as unknown,
        catch: () => new SearchError({ reason: "PROVIDER_ERROR", message: `${provider} sent a body that is not JSON` })
      })
    ),
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new SearchError({
          reason: "PROVIDER_TIMEOUT",
          message: `${provider} did not finish its answer within ${Duration.format(timeout)}`
        })
    })
  )

/** Decodes a provider's JSON reply; one without the documented shape is PROVIDER_ERROR naming the field. */
export const decodeReply = <A, I>(provider: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (payload: unknown): Either.Either<A, SearchError> =>
    Either.mapLeft(decode(payload), (error) =>
      new SearchError({
        reason: "PROVIDER_ERROR",
        message: `${provider} sent a reply of another shape (${issueLine(firstDecodeIssue(error))}) — ` +
          `check that its configured URL points at the ${provider} API`
      }))
}

/** Milliseconds until a `Retry-After` (seconds or HTTP date) elapses, when the header is usable. */
export const retryAfterMs = (value: string | undefined): Effect.Effect<number | undefined> =>
  Effect.gen(function*() {
    if (value === undefined || value.trim() === "") return undefined
    const seconds = Number(value)
    if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000))
    const at = Date.parse(value)
    if (Number.isNaN(at)) return undefined
    return Math.max(0, at - (yield* Clock.currentTimeMillis))
  })

/**
 * ISO 8601 from a provider date. Dates without a zone are read as UTC and reported as such, so a
 * caller can tell a guessed offset from a given one; unparseable or absent dates stay null.
 */
export const normalizeDate = (value: string | null | undefined): { iso: string | null; assumedUtc: boolean } => {
  if (value === null || value === undefined || value.trim() === "") return { iso: null, assumedUtc: false }
  const text = value.trim()
  const hasZone = /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(text)
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text)
  const parsed = Date.parse(hasZone ? text : dateOnly ? `${text}T00:00:00Z` : `${text.replace(" ", "T")}Z`)
  if (Number.isNaN(parsed)) return { iso: null, assumedUtc: false }
  return { iso: new Date(parsed).toISOString(), assumedUtc: !hasZone }
}
