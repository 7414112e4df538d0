import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import * as fc from "fast-check"
import type { McpTool } from "../../../src/programs/mcp/McpTool.js"
import { initialize, lineHarness, type Reply } from "../../support/mcp/LineHarness.js"

const objectSchema = { type: "object" }
const annotations = {
  title: "t",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
}

/** A tool that runs until `release` is done (or it is interrupted), recording an interruption. */
const gatedTool = (release: Deferred.Deferred<void>, interrupted: Deferred.Deferred<void>): McpTool => ({
  name: "slow",
  description: "waits",
  annotations,
  inputSchema: objectSchema,
  outputSchema: { type: "object", properties: { done: { type: "boolean" } } },
  call: () =>
    Deferred.await(release).pipe(
      Effect.as({
        content: [{ type: "text" as const, text: "done" }],
        structuredContent: { done: true },
        isError: false
      }),
      Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
    )
})

const isReply = (id: unknown) => (line: Reply | ReadonlyArray<Reply>) =>
  !Array.isArray(line) && (line as Reply).id === id

/** An error as the issue asks: a JSON-RPC code and a plain one-line message, nothing else. */
const assertPlainError = (reply: Reply) => {
  assert.isDefined(reply.error, JSON.stringify(reply))
  assert.deepStrictEqual(Object.keys(reply.error!).sort(), ["code", "message"])
  assert.isTrue(Number.isInteger(reply.error!.code))
  assert.notMatch(reply.error!.message, /\n|_tag|Cause|\s{4}at /)
}

// A message as a hostile client may write it: every id type, missing or odd methods and params.
const idArb = fc.oneof(
  fc.constant(undefined),
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constant(2 ** 60)
)
const methodArb = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom("ping", "tools/list", "tools/call", "no/such/method", "initialize", "resources/list"),
  fc.integer(),
  fc.constant(null)
)
const paramsArb = fc.oneof(
  fc.constant(undefined),
  fc.constant({}),
  fc.constant([]),
  fc.integer(),
  fc.constant({ name: 5 }),
  fc.constant({ name: "missing-tool" })
)
const messageArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      jsonrpc: fc.constantFrom("2.0", "1.0", undefined),
      id: idArb,
      method: methodArb,
      params: paramsArb
    })
  },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.boolean()) }
)

/** Drops `undefined` fields, as JSON.stringify would, so the oracle sees what the server sees. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? "null")

/** Whether JSON-RPC wants an answer to this message (a notification or a reply never gets one). */
const wantsReply = (message: unknown): boolean => {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return true
  const fields = message as Record<string, unknown>
  if (typeof fields.method === "string" && !("id" in fields)) return false
  if (!("method" in fields) && ("result" in fields || "error" in fields)) return false
  return true
}

const replyId = (message: unknown): unknown => {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return null
  const id = (message as Record<string, unknown>).id
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null
}

describe("vtree mcp stdio wire", () => {
  it.scoped("answers every request of any shape, never wedges, and errors are a code and a plain line", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const wire$ = yield* lineHarness([gatedTool(release, interrupted)])
      wire$.send(initialize("2025-11-25"))
      yield* Effect.promise(() => wire$.waitFor(isReply("init")))
      wire$.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      let sentinel = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.oneof(messageArb, fc.array(messageArb, { maxLength: 4 })), async (generated) => {
            const message = wire(generated)
            const before = wire$.lines.length
            wire$.send(message)
            const ping = `sentinel-${sentinel++}`
            wire$.send({ jsonrpc: "2.0", id: ping, method: "ping" })
            // The server still answers after whatever came before.
            await wire$.waitFor(isReply(ping))
            const expectsOne = Array.isArray(message) || wantsReply(message)
            if (expectsOne) {
              const id = Array.isArray(message) ? null : replyId(message)
              const reply = (await wire$.waitFor((line) =>
                wire$.lines.indexOf(line) >= before && !Array.isArray(line) && (line as Reply).id === id
              )) as Reply
              if (reply.error !== undefined) {
                assertPlainError(reply)
              }
              // Batches are not part of protocol 2025-11-25: refused as a whole.
              if (Array.isArray(message)) {
                assert.strictEqual(reply.error?.code, -32600)
              }
            }
            const since = wire$.lines.slice(before).filter((line) =>
              !isReply(ping)(line)
            )
            assert.isAtMost(since.length, expectsOne ? 1 : 0, JSON.stringify({ message, since }))
            for (const line of since) assert.isFalse(Array.isArray(line))
          }),
          { numRuns: 300 }
        )
      )
    }))

  it.scoped("maps the known failures to their codes: -32700, -32600, -32601, -32602", () =>
    Effect.gen(function*() {
      const wire$ = yield* lineHarness([])
      wire$.sendRaw("this is not json\n")
      wire$.sendRaw(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]))
      wire$.send({ jsonrpc: "2.0", id: true, method: "ping" })
      wire$.send({ jsonrpc: "2.0", id: 7 })
      wire$.send({ jsonrpc: "2.0", id: 8, method: "no/such/method" })
      wire$.send(initialize("2025-11-25"))
      wire$.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { arguments: {} } })
      wire$.send({ jsonrpc: "2.0", id: 10, method: "initialize", params: {} })
      wire$.send({ jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "nope" } })
      const last = (yield* Effect.promise(() => wire$.waitFor(isReply(11)))) as Reply
      for (const id of [7, 8, 9, 10, 11]) yield* Effect.promise(() => wire$.waitFor(isReply(id)))
      const byId = (id: unknown) => wire$.lines.filter(isReply(id)) as Array<Reply>
      assert.deepStrictEqual(byId(null).map((reply) => reply.error?.code), [-32700, -32700, -32600])
      assert.strictEqual(byId(7)[0]!.error?.code, -32600)
      assert.strictEqual(byId(8)[0]!.error?.code, -32601)
      assert.strictEqual(byId(9)[0]!.error?.code, -32602)
      assert.include(byId(9)[0]!.error?.message, "params.name")
      assert.strictEqual(byId(10)[0]!.error?.code, -32602)
      assert.strictEqual(last.error?.code, -32602)
      assert.include(last.error?.message, "Unknown tool: nope")
      for (const line of wire$.lines) if ((line as Reply).error !== undefined) assertPlainError(line as Reply)
    }))

  it.scoped("serves a batch as a batch under protocol 2025-03-26, answering each request once", () =>
    Effect.gen(function*() {
      const wire$ = yield* lineHarness([])
      wire$.send(initialize("2025-03-26"))
      const init = (yield* Effect.promise(() => wire$.waitFor(isReply("init")))) as Reply
      assert.strictEqual(init.result.protocolVersion, "2025-03-26")
      wire$.send([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: true, method: "ping" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: "x", method: "no/such" },
        "garbage"
      ])
      const batch = (yield* Effect.promise(() => wire$.waitFor((line) => Array.isArray(line)))) as Array<Reply>
      assert.deepStrictEqual(
        batch.map((reply) => [reply.id, reply.error?.code ?? "ok"]).sort((a, b) => String(a).localeCompare(String(b))),
        [[1, "ok"], ["x", -32601], [null, -32600], [null, -32600]].sort((a, b) => String(a).localeCompare(String(b)))
      )
      wire$.send([])
      const empty = (yield* Effect.promise(() =>
        wire$.waitFor((line) =>
          !Array.isArray(line) && (line as Reply).error?.message.includes("empty") === true
        )
      )) as Reply
      assert.strictEqual(empty.error?.code, -32600)
    }))

  it.scoped("refuses a batch under protocol 2025-11-25 with -32600 naming the protocol", () =>
    Effect.gen(function*() {
      const wire$ = yield* lineHarness([])
      wire$.send(initialize("2025-11-25"))
      yield* Effect.promise(() => wire$.waitFor(isReply("init")))
      wire$.send([{ jsonrpc: "2.0", id: 1, method: "ping" }])
      const refused = (yield* Effect.promise(() => wire$.waitFor(isReply(null)))) as Reply
      assert.strictEqual(refused.error?.code, -32600)
      assert.include(refused.error?.message, "2025-11-25")
      assert.isEmpty(wire$.lines.filter(isReply(1)))
    }))

  it.scoped("a call followed at once by the end of input is still answered, then the server closes", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const wire$ = yield* lineHarness([gatedTool(release, interrupted)])
      wire$.send(initialize("2025-11-25"))
      wire$.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      wire$.send({ jsonrpc: "2.0", id: "call-A", method: "tools/call", params: { name: "slow", arguments: {} } })
      wire$.end()
      yield* Effect.promise(() => wire$.waitFor(isReply("init")))
      const closed = yield* Effect.fork(Effect.promise(() => wire$.closed))
      yield* Deferred.succeed(release, undefined)
      const reply = (yield* Effect.promise(() => wire$.waitFor(isReply("call-A")))) as Reply
      assert.deepStrictEqual(reply.result.structuredContent, { done: true })
      yield* Fiber.join(closed)
    }))

  it.scoped("a cancelled call is interrupted and gets no reply, whatever its id's type", () =>
    Effect.gen(function*() {
      for (const id of [100, "call-A"]) {
        const release = yield* Deferred.make<void>()
        const interrupted = yield* Deferred.make<void>()
        const wire$ = yield* lineHarness([gatedTool(release, interrupted)])
        wire$.send(initialize("2025-11-25"))
        wire$.send({ jsonrpc: "2.0", method: "notifications/initialized" })
        wire$.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow", arguments: {} } })
        wire$.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "user" } })
        yield* Deferred.await(interrupted)
        // Released after the interruption: had the call gone on, its result would follow the ping.
        yield* Deferred.succeed(release, undefined)
        wire$.send({ jsonrpc: "2.0", id: "after", method: "ping" })
        yield* Effect.promise(() => wire$.waitFor(isReply("after")))
        assert.isEmpty(wire$.lines.filter(isReply(id)))
        // The cancelled request no longer holds the end of input: the server closes at once.
        wire$.end()
        yield* Effect.promise(() => wire$.closed)
      }
    }))
})
