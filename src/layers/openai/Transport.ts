import { type Readable } from "node:stream"
import { promisify } from "node:util"
import * as zlib from "node:zlib"
import { Agent, type Dispatcher, interceptors, request } from "undici"

/**
 * The `fetch` the openai SDK sends through. Node's global fetch builds WHATWG request and response
 * streams for every call; undici's `request` does the same HTTP/1.1 exchange over a keep-alive pool
 * for a fraction of the client CPU, and a reply that is read whole into a buffer needs no stream at
 * all. With hundreds of calls in flight that CPU is what queues replies on the event loop
 * (bench/providers.ts measures it), so the SDK gets this instead:
 *
 * - the request goes out through `undici.request`; like fetch, it asks for compressed replies (and
 *   decodes them) and follows redirects;
 * - a streamed reply (server-sent events) comes back as a standard `Response` over the socket;
 * - any other reply is read whole and comes back as a `BufferedResponse`: the read side of `Response`
 *   over bytes already received, with no stream built unless someone asks for `.body`. Reading it
 *   whole also reports a connection cut mid-body as a failed request, as fetch reports a failed send.
 *
 * Whatever this path does not handle (a streamed or multipart request body, a non-HTTP URL, a
 * `Request` object) goes to the global fetch unchanged, so no SDK feature depends on it.
 */

// One pool for every endpoint, like the global fetch's: connections are kept per origin. Like fetch it
// follows redirects, at most 20.
let sharedAgent: Dispatcher | undefined
const agent = (): Dispatcher =>
  (sharedAgent ??= new Agent({ keepAliveTimeout: 10_000 }).compose(interceptors.redirect({ maxRedirections: 20 })))

/** What fetch offers when the caller says nothing; `decoders` undoes each of them. */
const acceptEncoding = "gzip, deflate, br"

interface Decoder {
  readonly whole: (bytes: Uint8Array) => Promise<Buffer>
  readonly stream: () => zlib.Zlib & NodeJS.ReadWriteStream
}

// undici's own decompress interceptor would do this, but it prints an ExperimentalWarning on Node 20
// into every CLI run; node:zlib does the decoding either way.
const gzip: Decoder = { whole: promisify(zlib.gunzip), stream: () => zlib.createGunzip() }
const decoders: Record<string, Decoder> = {
  gzip,
  "x-gzip": gzip,
  br: { whole: promisify(zlib.brotliDecompress), stream: () => zlib.createBrotliDecompress() },
  // "deflate" should be zlib-wrapped (RFC 9110), but some servers send it raw: a body that does not
  // inflate is tried once more as raw deflate.
  deflate: {
    whole: (bytes) => promisify(zlib.inflate)(bytes).catch(() => promisify(zlib.inflateRaw)(bytes)),
    stream: () => zlib.createInflate()
  }
}

/** The content codings of a reply, in the order they were applied (identity left out). */
const codings = (header: string | Array<string> | undefined) => {
  if (header === undefined) return []
  const names = (Array.isArray(header) ? header.join(",") : header).split(",").map((name) => name.trim().toLowerCase())
  return names.filter((name) => name !== "" && name !== "identity")
}

// Statuses whose reply has no body (a Response with one cannot even be constructed).
const nullBodyStatus = new Set([101, 204, 205, 304])

type RawHeaders = Record<string, string | Array<string> | undefined>

/**
 * The Headers read API over undici's reply headers, which arrive as an object of lower-case names.
 * Values of a repeated header are joined with ", " as Headers does; `set-cookie` stays a list.
 */
export class ReplyHeaders implements Iterable<[string, string]> {
  constructor(readonly raw: RawHeaders) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()]
    if (value === undefined) return null
    return Array.isArray(value) ? value.join(", ") : value
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined
  }
  getSetCookie(): Array<string> {
    const value = this.raw["set-cookie"]
    return value === undefined ? [] : Array.isArray(value) ? [...value] : [value]
  }
  *entries(): IterableIterator<[string, string]> {
    // Sorted by name, as Headers iterates.
    for (const name of Object.keys(this.raw).sort()) {
      const value = this.get(name)
      if (value !== null) yield [name, value]
    }
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value
  }
  forEach(callback: (value: string, name: string, headers: ReplyHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this)
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries()
  }
}

const utf8 = new TextDecoder()

/**
 * The read side of a `Response` whose body is already in memory. `text`, `json` and `arrayBuffer`
 * read the bytes directly; the rarely used rest (`body`, `blob`, `formData`, `bytes`) go through a
 * real Response made on demand.
 */
export class BufferedResponse {
  readonly type = "basic"
  readonly redirected = false
  #used = false
  #real: Response | undefined

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: ReplyHeaders,
    readonly url: string,
    private readonly content: Uint8Array | null
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#real?.bodyUsed ?? false)
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.real().body
  }

  private consume(): Uint8Array {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read")
    this.#used = true
    return this.content ?? new Uint8Array(0)
  }

  private real(): Response {
    if (this.#real === undefined) {
      if (this.#used) throw new TypeError("Body is unusable: Body has already been read")
      this.#real = new Response(this.content as Uint8Array<ArrayBuffer> | null, {
        status: this.status,
        statusText: this.statusText,
        headers: toHeaders(this.headers.raw)
      })
    }
    return this.#real
  }

  text(): Promise<string> {
    try {
      return Promise.resolve(utf8.decode(this.consume()))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown)
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    try {
      const bytes = this.consume()
      return Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  bytes(): Promise<Uint8Array> {
    return this.arrayBuffer().then((buffer) => new Uint8Array(buffer))
  }

  blob(): Promise<Blob> {
    return this.real().blob()
  }

  formData(): Promise<FormData> {
    return this.real().formData()
  }

  clone(): BufferedResponse {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.")
    return new BufferedResponse(this.status, this.statusText, this.headers, this.url, this.content)
  }
}

type RequestBody = string | Uint8Array | null

const plainBody = (body: unknown): { readonly ok: true; readonly body: RequestBody } | { readonly ok: false } => {
  if (body === undefined || body === null) return { ok: true, body: null }
  if (typeof body === "string" || body instanceof Uint8Array) return { ok: true, body }
  if (body instanceof ArrayBuffer) return { ok: true, body: new Uint8Array(body) }
  return { ok: false }
}

/** Request headers as undici's flat `[name, value, name, value, …]` list, repeated names kept. */
const flatHeaders = (headers: RequestInit["headers"]): Array<string> => {
  const flat: Array<string> = []
  let encodingSet = false
  if (headers !== undefined) {
    const pairs = headers instanceof Headers || Array.isArray(headers) ? headers : Object.entries(headers)
    for (const [name, value] of pairs as Iterable<[string, string | ReadonlyArray<string>]>) {
      if (name.toLowerCase() === "accept-encoding") encodingSet = true
      if (typeof value === "string") flat.push(name, value)
      else for (const item of value) flat.push(name, item)
    }
  }
  if (!encodingSet) flat.push("accept-encoding", acceptEncoding)
  return flat
}

const toHeaders = (raw: RawHeaders): Headers => {
  const headers = new Headers()
  for (const name in raw) {
    const value = raw[name]
    if (value === undefined) continue
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else headers.set(name, value)
  }
  return headers
}

/** A `fetch` over undici's pooled `request`: same wire behaviour, a fraction of the per-call CPU. */
export const transportFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const body = plainBody(init?.body)
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined
  if (url === undefined || !body.ok || !/^https?:/i.test(url)) return fetch(input, init)
  const method = (init?.method ?? "GET").toUpperCase()
  const reply = await request(url, {
    method: method as "GET",
    headers: flatHeaders(init?.headers),
    body: body.body,
    signal: init?.signal ?? undefined,
    dispatcher: agent()
  })
  const raw = reply.headers as RawHeaders
  const applied = codings(raw["content-encoding"])
  const known = applied.every((name) => decoders[name] !== undefined)
  // As fetch does: a decoded body no longer has the encoding or the length the headers state.
  const shown: RawHeaders = known && applied.length > 0
    ? Object.fromEntries(Object.entries(raw).filter(([name]) => name !== "content-encoding" && name !== "content-length"))
    : raw
  if (String(raw["content-type"]).includes("text/event-stream")) {
    let body: Readable | NodeJS.ReadableStream = reply.body
    if (known) for (const name of [...applied].reverse()) body = body.pipe(decoders[name]!.stream())
    return new Response(body as unknown as ConstructorParameters<typeof Response>[0], {
      status: reply.statusCode,
      statusText: reply.statusText,
      headers: toHeaders(shown)
    })
  }
  const noBody = nullBodyStatus.has(reply.statusCode) || method === "HEAD"
  let bytes: Uint8Array | null = null
  if (noBody) reply.body.resume()
  else {
    bytes = new Uint8Array(await reply.body.arrayBuffer())
    if (known) for (const name of [...applied].reverse()) bytes = await decoders[name]!.whole(bytes)
  }
  return new BufferedResponse(reply.statusCode, reply.statusText, new ReplyHeaders(shown), url, bytes) as unknown as Response
}
