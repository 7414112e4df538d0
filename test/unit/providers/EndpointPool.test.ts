import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option, Ref, TestClock } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import {
  choose,
  ejectionDelay,
  type EndpointPool,
  makeReplicaSet,
  type ReplicaHealth,
  withPool
} from "../../../src/layers/openai/EndpointPool.js"

const health = (patch: Partial<ReplicaHealth> = {}): ReplicaHealth => ({
  inFlight: 0,
  failures: 0,
  ejectedUntil: null,
  probing: false,
  lastPicked: 0,
  unreachable: false,
  ...patch
})

describe("choose", () => {
  it("sends to the replica with the fewest in flight; idle ones take turns", () => {
    assert.deepStrictEqual(choose([health({ inFlight: 3 }), health({ inFlight: 1 })], 0, new Set()), { use: 1 })
    assert.deepStrictEqual(choose([health({ lastPicked: 7 }), health({ lastPicked: 2 })], 0, new Set()), { use: 1 })
  })

  it("prefers a replica the request has not tried, even a busier one", () => {
    assert.deepStrictEqual(choose([health(), health({ inFlight: 5 })], 0, new Set([0])), { use: 1 })
    assert.deepStrictEqual(choose([health(), health({ ejectedUntil: 50 })], 0, new Set([0])), { use: 0 })
  })

  it("skips ejected replicas until their back-off ends, then probes one (once)", () => {
    const ejected = health({ ejectedUntil: 100, failures: 1 })
    assert.deepStrictEqual(choose([ejected, health({ inFlight: 9 })], 99, new Set()), { use: 1 })
    assert.deepStrictEqual(choose([ejected, health({ inFlight: 9 })], 100, new Set()), { probe: 0 })
    assert.deepStrictEqual(choose([{ ...ejected, probing: true }, health({ inFlight: 9 })], 100, new Set()), { use: 1 })
  })

  it("with every replica out, the one due back soonest takes the request", () => {
    assert.deepStrictEqual(choose([health({ ejectedUntil: 300 }), health({ ejectedUntil: 200 })], 0, new Set()), {
      use: 1
    })
  })
})

describe("ejectionDelay", () => {
  it("doubles per ejection in a row, at most a minute", () => {
    const base = Duration.seconds(5)
    assert.deepStrictEqual([1, 2, 3, 4, 5, 40].map((n) => Duration.toSeconds(ejectionDelay(n, base))), [
      5,
      10,
      20,
      40,
      60,
      60
    ])
  })
})

const transport = (name: string) =>
  new ProviderError({ provider: "llm", reason: "Transport", message: `llm: connection failed (${name} is down)` })

/**
 * Replicas named by their client: a request or a probe to a replica in `down` fails to connect, any
 * other answers with the replica's name. `gate`, when set, holds every request open until opened.
 */
const fakePool = (names: ReadonlyArray<string>, options: { concurrency?: number } = {}) =>
  Effect.gen(function*() {
    const down = new Set<string>()
    const served: Array<string> = []
    const probes: Array<string> = []
    const set = yield* makeReplicaSet(options.concurrency ?? 16)
    const pool: EndpointPool<string> = {
      members: names.map((name) => ({ replica: set.replica(`http://${name}/v1`), client: name })),
      set,
      probe: (client) =>
        Effect.suspend(() => (probes.push(client), down.has(client) ? Effect.fail(transport(client)) : Effect.void)),
      ejectFor: Duration.seconds(5)
    }
    const policy = { provider: "llm", timeout: Duration.seconds(30), retries: 4 }
    const send = (gate?: Deferred.Deferred<void>) =>
      Effect.gen(function*() {
        const servedBy = yield* Ref.make(Option.none<string>())
        const value = yield* withPool(pool, policy, servedBy)((client) =>
          Effect.suspend(() => {
            if (down.has(client)) return Effect.fail(transport(client))
            served.push(client)
            return gate === undefined ? Effect.succeed(client) : Effect.as(Deferred.await(gate), client)
          })
        )
        return { value, servedBy: Option.getOrThrow(yield* Ref.get(servedBy)) }
      })
    return { pool, down, served, probes, send }
  })

// Lets forked fibers run up to where they wait (the gate or a permit).
const settle = Effect.repeatN(Effect.yieldNow(), 50)

describe("withPool", () => {
  it.effect("both replicas serve: sequential calls alternate, concurrent ones spread by in-flight count", () =>
    Effect.gen(function*() {
      const { send, served } = yield* fakePool(["a", "b"])
      const first = yield* send()
      assert.deepStrictEqual(first, { value: "a", servedBy: "http://a/v1" })
      yield* send()
      yield* send()
      assert.deepStrictEqual(served, ["a", "b", "a"])
      served.length = 0
      const gate = yield* Deferred.make<void>()
      const fibers = yield* Effect.forEach([1, 2, 3, 4], () => Effect.fork(send(gate)))
      yield* settle
      assert.deepStrictEqual([...served].sort(), ["a", "a", "b", "b"])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll(fibers)
    }))

  it.effect("the cap applies per replica: with a cap of 1, two replicas run two calls at once", () =>
    Effect.gen(function*() {
      const { pool, send, served } = yield* fakePool(["a", "b"], { concurrency: 1 })
      const gate = yield* Deferred.make<void>()
      const fibers = yield* Effect.forEach([1, 2, 3, 4], () => Effect.fork(send(gate)))
      yield* settle
      assert.deepStrictEqual([...served].sort(), ["a", "b"])
      assert.deepStrictEqual(pool.members.map((m) => m.replica.health.inFlight), [2, 2])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll(fibers)
      assert.strictEqual(served.length, 4)
      assert.deepStrictEqual(pool.members.map((m) => m.replica.health.inFlight), [0, 0])
    }))

  it.effect("a call failing on a dead replica is retried on the other; the dead one is ejected, probed after the back-off, and serves again", () =>
    Effect.gen(function*() {
      const { down, pool, probes, send, served } = yield* fakePool(["a", "b"])
      down.add("a")
      const retried = yield* Effect.fork(send())
      // The retry waits out the Schedule's first delay (1 s, jittered by at most 20%).
      yield* TestClock.adjust("1200 millis")
      assert.deepStrictEqual(yield* Fiber.join(retried), { value: "b", servedBy: "http://b/v1" })
      assert.strictEqual(pool.members[0]!.replica.health.ejectedUntil, 5_000)
      // While a is out, everything goes to b, with no failed attempt.
      for (let i = 0; i < 3; i++) yield* send()
      assert.deepStrictEqual(served, ["b", "b", "b", "b"])
      assert.deepStrictEqual(probes, [])
      // a is back; once its back-off has run, it is probed and then taken again.
      down.delete("a")
      yield* TestClock.adjust("5 seconds")
      served.length = 0
      yield* send()
      yield* send()
      assert.deepStrictEqual(probes, ["a"])
      assert.deepStrictEqual(served.sort(), ["a", "b"])
      assert.strictEqual(pool.members[0]!.replica.health.ejectedUntil, null)
    }))

  it.effect("a failed probe keeps the replica out for twice as long", () =>
    Effect.gen(function*() {
      const { down, pool, probes, send, served } = yield* fakePool(["a", "b"])
      down.add("a")
      const first = yield* Effect.fork(send())
      yield* TestClock.adjust("1200 millis")
      yield* Fiber.join(first)
      yield* TestClock.adjust("5 seconds")
      yield* send()
      assert.deepStrictEqual(probes, ["a"])
      // Ejected at 6.2 s for 10 s.
      assert.strictEqual(pool.members[0]!.replica.health.ejectedUntil, 16_200)
      yield* TestClock.adjust("9 seconds")
      yield* send()
      assert.deepStrictEqual(probes, ["a"])
      down.delete("a")
      yield* TestClock.adjust("1 second")
      yield* send()
      assert.deepStrictEqual(probes, ["a", "a"])
      assert.strictEqual(pool.members[0]!.replica.health.failures, 0)
      assert.deepStrictEqual(served, ["b", "b", "b", "a"])
    }))

  it.effect("one replica is never ejected: failures are retried on it, as before", () =>
    Effect.gen(function*() {
      const { down, pool, send } = yield* fakePool(["solo"])
      down.add("solo")
      const fiber = yield* Effect.fork(Effect.flip(send()))
      for (let i = 0; i < 4; i++) yield* TestClock.adjust("20 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "Transport")
      assert.strictEqual(pool.members[0]!.replica.health.ejectedUntil, null)
      down.delete("solo")
      assert.strictEqual((yield* send()).value, "solo")
    }))
})
