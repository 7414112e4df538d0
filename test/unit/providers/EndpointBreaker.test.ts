import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, Ref, TestClock } from "effect"
import { ProviderError, type ProviderErrorReason } from "../../../src/domain/ProviderError.js"
import { type EndpointPool, makeReplicaSet, withPool } from "../../../src/layers/openai/EndpointPool.js"
import {
  type AttemptOutcome,
  type BreakerCounts,
  countAttempt,
  type EndpointOutage,
  makeBreaker,
  withBreaker
} from "../../../src/services/EndpointBreaker.js"

const failure = (reason: ProviderErrorReason) =>
  new ProviderError({ provider: "llm", reason, message: `llm: ${reason} (connect ECONNREFUSED 127.0.0.1:9)` })

const attempt = (patch: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  role: "agent",
  hosts: ["127.0.0.1:9"],
  failure: failure("Transport"),
  allDown: true,
  ...patch
})

/** Feeds the outcomes in order; returns the counts and the first outage, if any. */
const feed = (outcomes: ReadonlyArray<AttemptOutcome>, threshold: number) => {
  let counts: BreakerCounts = {}
  let outage: EndpointOutage | undefined
  for (const outcome of outcomes) {
    const step = countAttempt(counts, outcome, threshold)
    counts = step.counts
    outage ??= step.outage
  }
  return { counts, outage }
}

describe("countAttempt", () => {
  it("trips on the Nth unreachable attempt in a row of one role, naming the role, the hosts and the last error", () => {
    assert.isUndefined(feed(Array.from({ length: 7 }, () => attempt()), 8).outage)
    const { outage } = feed(Array.from({ length: 8 }, () => attempt()), 8)
    assert.deepStrictEqual(outage, {
      role: "agent",
      hosts: ["127.0.0.1:9"],
      failures: 8,
      lastError: "llm: Transport (connect ECONNREFUSED 127.0.0.1:9)"
    })
  })

  it("counts timeouts as unreachable, and resets on any reply: a success, a 5xx, a 429, a 400", () => {
    assert.strictEqual(
      feed(Array.from({ length: 3 }, () => attempt({ failure: failure("Timeout") })), 3).outage?.role,
      "agent"
    )
    for (const answered of [null, failure("Server"), failure("RateLimited"), failure("BadRequest")]) {
      const outcomes = [
        ...Array.from({ length: 5 }, () => attempt()),
        attempt({ failure: answered, allDown: false }),
        ...Array.from({ length: 5 }, () => attempt())
      ]
      const { counts, outage } = feed(outcomes, 8)
      assert.isUndefined(outage)
      assert.strictEqual(counts.agent, 5)
    }
  })

  it("keeps roles apart: another role's failures neither add to nor reset this one's", () => {
    const outcomes = [
      ...Array.from({ length: 4 }, () => attempt()),
      attempt({ role: "tool", failure: null, allDown: false }),
      ...Array.from({ length: 4 }, () => attempt({ role: "vlm" })),
      ...Array.from({ length: 4 }, () => attempt())
    ]
    assert.strictEqual(feed(outcomes, 8).outage?.role, "agent")
    assert.strictEqual(feed(outcomes, 8).counts.vlm, 4)
  })

  it("does not trip while some endpoint of the role still answers, however many attempts failed", () => {
    const { counts, outage } = feed(Array.from({ length: 20 }, () => attempt({ allDown: false })), 8)
    assert.isUndefined(outage)
    assert.strictEqual(counts.agent, 20)
    assert.strictEqual(
      feed([...Array.from({ length: 20 }, () => attempt({ allDown: false })), attempt()], 8).outage?.failures,
      21
    )
  })

  it("never trips with a threshold of 0", () => {
    assert.isUndefined(feed(Array.from({ length: 100 }, () => attempt()), 0).outage)
  })
})

const transport = (name: string) =>
  new ProviderError({ provider: "llm", reason: "Transport", message: `llm: connection failed (${name} is down)` })

/** A pool of replicas named by their client; a request to one in `down` fails to connect. */
const fakePool = (names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const down = new Set<string>()
    const set = yield* makeReplicaSet(16)
    const pool: EndpointPool<string> = {
      members: names.map((name) => ({ replica: set.replica(`http://${name}:8000/v1`), client: name })),
      set,
      probe: (client) => Effect.suspend(() => down.has(client) ? Effect.fail(transport(client)) : Effect.void),
      ejectFor: Duration.seconds(5)
    }
    const policy = { provider: "llm", timeout: Duration.seconds(30), retries: 4 }
    const send = Effect.gen(function*() {
      const servedBy = yield* Ref.make(Option.none<string>())
      const attempts = yield* Ref.make(0)
      const result = yield* withPool(pool, policy, servedBy, { role: "agent", attempts })((client) =>
        Effect.suspend(() => down.has(client) ? Effect.fail(transport(client)) : Effect.succeed(client))
      ).pipe(Effect.either)
      return { result, attempts: yield* Ref.get(attempts) }
    })
    return { down, send }
  })

describe("withPool and the breaker", () => {
  it.effect("every retried attempt on a dead endpoint counts: the breaker trips during the first call's retries", () =>
    Effect.gen(function*() {
      const { down, send } = yield* fakePool(["solo"])
      down.add("solo")
      const breaker = yield* makeBreaker(3)
      const call = yield* Effect.fork(withBreaker(breaker)(send))
      const tripped = yield* Effect.fork(breaker.tripped)
      // The first attempt fails at once; the retries wait about 1 s, then 2 s (jittered by at most 20 %).
      yield* TestClock.adjust("1200 millis")
      assert.isNull(tripped.unsafePoll())
      yield* TestClock.adjust("2400 millis")
      const outage = yield* Fiber.join(tripped)
      assert.deepStrictEqual(outage, {
        role: "agent",
        hosts: ["solo:8000"],
        failures: 3,
        lastError: "llm: connection failed (solo is down)"
      })
      yield* Fiber.interrupt(call)
    }))

  it.effect("records how many attempts a call took", () =>
    Effect.gen(function*() {
      const { down, send } = yield* fakePool(["a", "b"])
      assert.deepStrictEqual((yield* send).attempts, 1)
      down.add("a")
      down.add("b")
      const failing = yield* Effect.fork(send)
      for (let i = 0; i < 6; i++) yield* TestClock.adjust("20 seconds")
      const failed = yield* Fiber.join(failing)
      assert.strictEqual(failed.attempts, 5)
      assert.isTrue(failed.result._tag === "Left")
    }))

  it.effect("with one replica dead and the other answering, the breaker never trips", () =>
    Effect.gen(function*() {
      const { down, send } = yield* fakePool(["a", "b"])
      down.add("a")
      const breaker = yield* makeBreaker(1)
      const tripped = yield* Effect.fork(breaker.tripped)
      for (let i = 0; i < 6; i++) {
        const call = yield* Effect.fork(withBreaker(breaker)(send))
        yield* TestClock.adjust("6 seconds")
        assert.strictEqual((yield* Fiber.join(call)).result._tag, "Right")
      }
      assert.isNull(tripped.unsafePoll())
      // Both dead: the next failure finds every replica down.
      down.add("b")
      const call = yield* Effect.fork(withBreaker(breaker)(send))
      for (let i = 0; i < 6; i++) yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(call)
      assert.deepStrictEqual((yield* Fiber.join(tripped)).hosts, ["a:8000", "b:8000"])
    }))
})
