import { Effect } from "effect"
import type { LookupAddress, LookupOptions } from "node:dns"
import type { Readable } from "node:stream"
import { Transform, Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import zlib from "node:zlib"
import { Agent, type Dispatcher } from "undici"
import { SearchError } from "../../domain/Search.js"
import { blockedAddressTextReason, checkUrl, type UrlPolicy } from "../../domain/UrlSafety.js"
import type { ResolvedAddress } from "../../services/DnsResolver.js"

export interface SafeFetchOptions {
  readonly policy: UrlPolicy
  readonly resolve: (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>
  readonly maxRedirects: number
  readonly maxBodyBytes: number
  readonly acceptTypes: ReadonlyArray<string>
  readonly userAgent: string
}

export interface FetchedPage {
  readonly finalUrl: string
  readonly status: number
  readonly mimeType: string
  readonly charset: string | undefined
  readonly body: Buffer
  readonly redirects: number
}

const blocked = (message: string) => new SearchError({ reason: "URL_BLOCKED", message })
const tooLarge = (limit: number) =>
  new SearchError({
    reason: "CONTENT_TOO_LARGE",
    message: `the page is larger than ${limit} bytes (compressed or decompressed) — read a smaller page`
  })

type Pins = Map<string, ReadonlyArray<ResolvedAddress>>

/**
 * The socket's DNS hook: hands out only addresses that were resolved and checked before the request
 * was sent, so a resolver that answers differently the second time (DNS rebinding) is never asked.
 */
const pinnedLookup = (pins: Pins) =>
(
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void
): void => {
  const pinned = pins.get(hostname.toLowerCase())
  if (pinned === undefined || pinned.length === 0) {
    const error: NodeJS.ErrnoException = new Error(`no checked address pinned for this host`)
    error.code = "ENOTFOUND"
    callback(error, "")
    return
  }
  const family = options.family === 4 || options.family === 6 ? options.family : undefined
  const usable = family === undefined ? pinned : pinned.filter((entry) => entry.family === family)
  if (options.all === true) {
    callback(null, usable.map((entry) => ({ address: entry.address, family: entry.family })))
  } else if (usable.length === 0) {
    const error: NodeJS.ErrnoException = new Error(`no checked IPv${family} address for this host`)
    error.code = "ENOTFOUND"
    callback(error, "")
  } else {
    callback(null, usable[0]!.address, usable[0]!.family)
  }
}

const contentCodecs: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress()
}

class TooLarge extends Error {}

/** Reads the body through its content decoders, counting bytes on both sides of them. */
const readCapped = async (body: Readable, encodings: ReadonlyArray<string>, limit: number): Promise<Buffer> => {
  let compressed = 0
  let decoded = 0
  const chunks: Array<Buffer> = []
  const countIn = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      compressed += chunk.length
      done(compressed > limit ? new TooLarge() : null, chunk)
    }
  })
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      decoded += chunk.length
      if (decoded > limit) return done(new TooLarge())
      chunks.push(chunk)
      done()
    }
  })
  // Content-Encoding lists codings in the order they were applied; undo them last to first.
  const decoders = [...encodings].reverse().map((coding) => contentCodecs[coding]!())
  await pipeline([body, countIn, ...decoders, collect])
  return Buffer.concat(chunks)
}

/** Drops a body we will not read; undici reports the abort as an error nobody needs to hear. */
const discard = (body: Readable): void => {
  body.on("error", () => {})
  body.destroy()
}

const headerText = (value: string | Array<string> | undefined): string | undefined =>
  Array.isArray(value) ? value.join(", ") : value

const parseContentType = (value: string | undefined): { mimeType: string; charset: string | undefined } => {
  if (value === undefined) return { mimeType: "", charset: undefined }
  const [type, ...params] = value.split(";")
  const charsetParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith("charset="))
  const charset = charsetParam?.slice("charset=".length).trim().replace(/^"|"$/g, "")
  return { mimeType: (type ?? "").trim().toLowerCase(), charset: charset === "" ? undefined : charset }
}

/** Resolves a hop's host, checks every address, and pins the checked set for the socket. */
const checkHop = (target: string | URL, options: SafeFetchOptions, pins: Pins) =>
  Effect.gen(function*() {
    const check = checkUrl(target, options.policy)
    if (!check.ok) return yield* Effect.fail(blocked(`URL blocked: ${check.reason}`))
    if (check.address !== null) return check.url
    const hostname = check.hostname.toLowerCase()
    if (pins.has(hostname)) return check.url
    const answers = yield* Effect.tryPromise({
      try: () => options.resolve(hostname),
      catch: () =>
        new SearchError({ reason: "FETCH_FAILED", message: "the host name could not be resolved — check the URL" })
    })
    if (answers.length === 0) {
      return yield* Effect.fail(
        new SearchError({ reason: "FETCH_FAILED", message: "the host name has no address — check the URL" })
      )
    }
    for (const answer of answers) {
      const reason = blockedAddressTextReason(answer.address, options.policy)
      if (reason !== null) return yield* Effect.fail(blocked(`URL blocked: the host resolves to ${reason}`))
    }
    pins.set(hostname, answers)
    return check.url
  })

type Response = Dispatcher.ResponseData

/** Sends one hop's GET through the request's own agent; interruption aborts it. */
const requestHop = (agent: Agent, target: URL, options: SafeFetchOptions) =>
  Effect.tryPromise({
    try: (signal) =>
      agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: "GET",
        headers: {
          "user-agent": options.userAgent,
          accept: `${options.acceptTypes.join(", ")};q=1.0, */*;q=0.1`,
          "accept-encoding": "gzip, deflate, br"
        },
        signal
      }),
    catch: (error) =>
      new SearchError({
        reason: "FETCH_FAILED",
        message: `the page could not be fetched (${error instanceof Error ? error.message : "connection failed"})`
      })
  })

/** The redirect's target, refused past the redirect limit, when it is no URL, or when it was visited already. */
const redirectTarget = (
  response: Response,
  target: URL,
  hop: number,
  options: SafeFetchOptions,
  visited: Set<string>
) =>
  Effect.gen(function*() {
    discard(response.body)
    if (hop + 1 > options.maxRedirects) {
      return yield* Effect.fail(blocked(`URL blocked: more than ${options.maxRedirects} redirects`))
    }
    let next: URL
    try {
      next = new URL(headerText(response.headers.location)!, target)
    } catch {
      return yield* Effect.fail(
        new SearchError({ reason: "FETCH_FAILED", message: "the page redirected to an invalid URL" })
      )
    }
    next.hash = ""
    if (visited.has(next.href)) return yield* Effect.fail(blocked("URL blocked: redirect loop"))
    visited.add(next.href)
    return next
  })

/**
 * What a final answer must be to be read: a 2xx, of an accepted type, not declared over the cap, in
 * known encodings. A refused answer's body is dropped unread.
 */
const acceptedAnswer = (response: Response, options: SafeFetchOptions) =>
  Effect.gen(function*() {
    const status = response.statusCode
    if (status < 200 || status >= 300) {
      discard(response.body)
      return yield* Effect.fail(
        new SearchError({
          reason: "FETCH_FAILED",
          message: `the server answered HTTP ${status}`,
          retryable: status === 408 || status === 429 || status >= 500
        })
      )
    }
    const { charset, mimeType } = parseContentType(headerText(response.headers["content-type"]))
    if (!options.acceptTypes.includes(mimeType)) {
      discard(response.body)
      return yield* Effect.fail(
        new SearchError({
          reason: "UNSUPPORTED_CONTENT_TYPE",
          message: `content type ${mimeType === "" ? "(none)" : mimeType} is not readable text (${
            options.acceptTypes.join(", ")
          })`
        })
      )
    }
    const declared = Number(headerText(response.headers["content-length"]) ?? NaN)
    if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
      discard(response.body)
      return yield* Effect.fail(tooLarge(options.maxBodyBytes))
    }
    const encodings = (headerText(response.headers["content-encoding"]) ?? "")
      .split(",")
      .map((coding) => coding.trim().toLowerCase())
      .filter((coding) => coding !== "" && coding !== "identity")
    const unknown = encodings.find((coding) => contentCodecs[coding] === undefined)
    if (unknown !== undefined) {
      discard(response.body)
      return yield* Effect.fail(
        new SearchError({
          reason: "FETCH_FAILED",
          message: `the server used an unknown content encoding ${unknown}`
        })
      )
    }
    return { charset, mimeType, encodings }
  })

/** Reads an accepted answer's body under the cap; interruption drops the rest of it. */
const readBody = (response: Response, encodings: ReadonlyArray<string>, options: SafeFetchOptions) =>
  Effect.tryPromise({
    try: () => readCapped(response.body, encodings, options.maxBodyBytes),
    catch: (error) =>
      error instanceof TooLarge
        ? tooLarge(options.maxBodyBytes)
        : new SearchError({
          reason: "FETCH_FAILED",
          message: "the page body could not be read or decompressed"
        })
  }).pipe(Effect.onInterrupt(() => Effect.sync(() => discard(response.body))))

/**
 * GET an untrusted URL: each hop is checked before it is sent, redirects are followed by hand (so each
 * target is checked too), sockets connect only to pinned addresses, and the body is capped.
 * Interruption (the caller's timeout) aborts the request.
 */
export const safeFetch = (input: string, options: SafeFetchOptions): Effect.Effect<FetchedPage, SearchError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const pins: Pins = new Map()
      // One agent per read keeps pins private to this request; keep-alive across reads is not worth sharing them.
      const agent = new Agent({ connect: { lookup: pinnedLookup(pins) }, connections: 1, pipelining: 0 })
      return { pins, agent }
    }),
    ({ agent, pins }) =>
      Effect.gen(function*() {
        let current = yield* checkHop(input, options, pins)
        const visited = new Set<string>([current.href])
        for (let hop = 0;; hop++) {
          const target = current
          const response = yield* requestHop(agent, target, options)
          const status = response.statusCode
          if (status >= 300 && status < 400 && headerText(response.headers.location) !== undefined) {
            const next = yield* redirectTarget(response, target, hop, options, visited)
            current = yield* checkHop(next, options, pins)
            continue
          }
          const { charset, encodings, mimeType } = yield* acceptedAnswer(response, options)
          const body = yield* readBody(response, encodings, options)
          return { finalUrl: target.href, status, mimeType, charset, body, redirects: hop }
        }
      }),
    ({ agent }) => Effect.promise(() => agent.destroy().catch(() => undefined))
  )
