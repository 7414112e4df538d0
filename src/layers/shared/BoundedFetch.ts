/**
 * A `fetch` for SDKs that read replies themselves (the openai SDK): a reply must start within a time
 * and stay under a size, or the request is aborted. Without it an endless reply grew `vtree doctor` to
 * 1.4 GB, and a server that sent its headers and then nothing held a call past every timeout (the
 * SDK's own timeout stops at the headers).
 */

/** The default most bytes a model reply may hold (`VTREE_PROVIDER_MAX_REPLY_BYTES`): 32 MiB. */
export const defaultMaxReplyBytes = 32 * 1024 * 1024

export interface ReplyLimits {
  /** The most bytes of a reply's body (after decompression), streamed replies included. */
  readonly maxBytes: number
  /** How long the first byte of the body may take, from the request on. */
  readonly firstByteMs: number
}

/** A reply aborted at one of its limits; the adapter's error mapping names it. */
export class ReplyOverLimit extends Error {
  constructor(readonly limit: "size" | "firstByte", message: string) {
    super(message)
    this.name = "ReplyOverLimit"
  }
}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB`

/** The ReplyOverLimit in an error or its causes (SDKs wrap what fetch threw). */
export const replyOverLimit = (error: unknown): ReplyOverLimit | undefined => {
  let current = error
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof ReplyOverLimit) return current
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** `inner` (the global fetch by default) with `limits` on every reply. */
export const boundedFetch =
  (limits: ReplyLimits, inner: typeof fetch = globalThis.fetch): typeof fetch => async (input, init) => {
    const controller = new AbortController()
    const outer = init?.signal
    let bodyControl: ReadableStreamDefaultController<Uint8Array> | undefined
    const stop = (error: ReplyOverLimit) => {
      bodyControl?.error(error)
      controller.abort(error)
    }
    const timer = setTimeout(
      () =>
        stop(
          new ReplyOverLimit(
            "firstByte",
            `the server sent no reply within ${
              limits.firstByteMs / 1000
            } s — check the server, or raise the role's timeout`
          )
        ),
      limits.firstByteMs
    )
    // A reply the caller dropped (cancelled before its first byte) must not keep the process waiting.
    timer.unref()
    const onOuterAbort = () => {
      clearTimeout(timer)
      controller.abort(outer?.reason)
    }
    if (outer?.aborted === true) onOuterAbort()
    else outer?.addEventListener("abort", onOuterAbort, { once: true })
    const done = () => {
      clearTimeout(timer)
      outer?.removeEventListener("abort", onOuterAbort)
    }
    let response: Response
    try {
      response = await inner(input, { ...init, signal: controller.signal })
    } catch (error) {
      done()
      throw error
    }
    if (response.body === null) {
      done()
      return response
    }
    // A Response of our own is the one way to hand the SDK a body read through the limits.
    const relay = (body: ArrayBuffer | ReadableStream<Uint8Array>) =>
      new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    // A reply that states its length within the cap (a whole chat completion) cannot outgrow it: it is read at
    // once, the timer armed until it is in, and handed on as bytes. A Response over bytes reads without the
    // per-chunk stream below, the costlier half of this fetch at every model call.
    const stated = Number(response.headers.get("content-length") ?? Number.NaN)
    if (Number.isSafeInteger(stated) && stated >= 0 && stated <= limits.maxBytes) {
      try {
        const bytes = await response.arrayBuffer()
        return relay(bytes)
      } catch (error) {
        // A failed read fails the body, as on the streamed path: the caller meets it reading the reply. After
        // the timer's abort, the reason is what the caller reads, whatever undici made of it.
        const reason = controller.signal.aborted && controller.signal.reason instanceof ReplyOverLimit
          ? controller.signal.reason
          : error
        return relay(new ReadableStream({ start: (control) => control.error(reason) }))
      } finally {
        done()
      }
    }
    let bytes = 0
    const reader = response.body.getReader()
    // A stream that pulls from the reply's own: a TransformStream and its pipe cost more than the rest of
    // this fetch, at every model call.
    const body = new ReadableStream<Uint8Array>({
      start: (control) => {
        bodyControl = control
      },
      pull: async (control) => {
        const chunk = await reader.read()
        if (chunk.done) {
          done()
          return control.close()
        }
        clearTimeout(timer)
        bytes += chunk.value.byteLength
        if (bytes > limits.maxBytes) {
          done()
          return stop(
            new ReplyOverLimit(
              "size",
              `the reply was over the ${
                mib(limits.maxBytes)
              } cap (VTREE_PROVIDER_MAX_REPLY_BYTES) — check the server, or raise the cap`
            )
          )
        }
        control.enqueue(chunk.value)
      },
      cancel: (reason) => {
        done()
        return reader.cancel(reason)
      }
    })
    return relay(body)
  }
