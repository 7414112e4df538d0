// The fetch the openai SDK reads replies through (src/layers/shared/BoundedFetch.ts), over an in-process
// fetch whose bodies are streams the test controls: no server.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { boundedFetch, ReplyOverLimit, replyOverLimit } from "../../../src/layers/shared/BoundedFetch.js"

/** A fetch whose reply streams `piece` without end, counting what it was asked to produce; it stops when cancelled. */
const endlessFetch = (piece: Uint8Array) => {
  const state = { pulled: 0, cancelled: false, signal: undefined as AbortSignal | undefined }
  const fetch = (async (_input: unknown, init?: RequestInit) => {
    state.signal = init?.signal ?? undefined
    return new Response(
      new ReadableStream<Uint8Array>({
        pull: (control) => {
          state.pulled += 1
          control.enqueue(piece)
        },
        cancel: () => {
          state.cancelled = true
        }
      }),
      { status: 200, headers: { "content-type": "application/json" } }
    )
  }) as typeof globalThis.fetch
  return { fetch, state }
}

const readAll = (response: Response) => Effect.promise(() => response.text().then(() => undefined, (error) => error))

describe("boundedFetch", () => {
  it.effect("an endless body fails past the cap, having read no more than the cap and one piece, and aborts the request", () =>
    Effect.gen(function*() {
      const { fetch, state } = endlessFetch(new Uint8Array(64 * 1024))
      const bounded = boundedFetch({ maxBytes: 1024 * 1024, firstByteMs: 60_000 }, fetch)
      const response = yield* Effect.promise(() => bounded("http://model.invalid/v1/chat/completions"))
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers.get("content-type"), "application/json")
      const error = yield* readAll(response)
      const over = replyOverLimit(error)
      assert.instanceOf(over, ReplyOverLimit)
      assert.strictEqual(over?.limit, "size")
      assert.strictEqual(
        over?.message,
        "the reply was over the 1 MiB cap (VTREE_PROVIDER_MAX_REPLY_BYTES) — check the server, or raise the cap"
      )
      // 16 pieces fill the cap; the 17th is over it. The stream's read-ahead may have asked for a few more.
      assert.isAtMost(state.pulled, 20)
      assert.isTrue(state.signal?.aborted)
    }))

  it.effect("a body under the cap is passed on whole, status and headers kept", () =>
    Effect.gen(function*() {
      const text = JSON.stringify({ choices: [{ message: { content: "ok" } }] })
      const inner = (async () =>
        new Response(text, { status: 201, statusText: "Created", headers: { "x-request-id": "r1" } })) as typeof fetch
      const response = yield* Effect.promise(() =>
        boundedFetch({ maxBytes: text.length, firstByteMs: 60_000 }, inner)("http://model.invalid/")
      )
      assert.deepStrictEqual([response.status, response.statusText, response.headers.get("x-request-id")], [
        201,
        "Created",
        "r1"
      ])
      assert.strictEqual(
        yield* Effect.promise(() =>
          response.text()
        ),
        text
      )
    }))

  it.effect("the caller's abort reaches the inner request", () =>
    Effect.gen(function*() {
      const { fetch, state } = endlessFetch(new Uint8Array(16))
      const caller = new AbortController()
      yield* Effect.promise(() =>
        boundedFetch({ maxBytes: 1024, firstByteMs: 60_000 }, fetch)("http://model.invalid/", {
          signal: caller.signal
        })
      )
      assert.isFalse(state.signal?.aborted)
      caller.abort(new Error("interrupted"))
      assert.isTrue(state.signal?.aborted)
    }))

  it.effect("a reply stating its length within the cap is read at once and passed on as bytes", () =>
    Effect.gen(function*() {
      const text = JSON.stringify({ choices: [{ message: { content: "ok" } }] })
      const inner = (async () =>
        new Response(text, {
          status: 200,
          headers: { "content-length": String(Buffer.byteLength(text)), "x-request-id": "r2" }
        })) as typeof fetch
      const response = yield* Effect.promise(() =>
        boundedFetch({ maxBytes: 1024, firstByteMs: 60_000 }, inner)("http://model.invalid/")
      )
      assert.strictEqual(response.headers.get("x-request-id"), "r2")
      assert.strictEqual(yield* Effect.promise(() => response.text()), text)
    }))

  it.effect("a reply stating its length and sending nothing fails at the first-byte limit, when its body is read", () =>
    Effect.gen(function*() {
      const state = { signal: undefined as AbortSignal | undefined }
      const inner = (async (_input: unknown, init?: RequestInit) => {
        state.signal = init?.signal ?? undefined
        // A body that never starts, and errors once the request is aborted, as undici's does.
        return new Response(
          new ReadableStream<Uint8Array>({
            start: (control) => init?.signal?.addEventListener("abort", () => control.error(init.signal?.reason))
          }),
          { status: 200, headers: { "content-length": "100" } }
        )
      }) as typeof globalThis.fetch
      const response = yield* Effect.promise(() =>
        boundedFetch({ maxBytes: 1024, firstByteMs: 20 }, inner)("http://model.invalid/")
      )
      const over = replyOverLimit(yield* readAll(response))
      assert.strictEqual(over?.limit, "firstByte")
      assert.isTrue(state.signal?.aborted)
    }))
})
