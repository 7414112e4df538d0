import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { loadBreakerCalls } from "../../../src/config/RunConfig.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("VTREE_BREAKER_CALLS", () => {
  it.effect("defaults to 8, takes any whole number, 0 switching the breaker off", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* loadBreakerCalls.pipe(withEnv({})), 8)
      assert.strictEqual(yield* loadBreakerCalls.pipe(withEnv({ VTREE_BREAKER_CALLS: "3" })), 3)
      assert.strictEqual(yield* loadBreakerCalls.pipe(withEnv({ VTREE_BREAKER_CALLS: "0" })), 0)
    }))

  it.effect("anything else is refused in one line naming the variable", () =>
    Effect.gen(function*() {
      for (const raw of ["-1", "2.5", "eight"]) {
        const error = yield* Effect.flip(loadBreakerCalls.pipe(withEnv({ VTREE_BREAKER_CALLS: raw })))
        assert.strictEqual(error.variable, "VTREE_BREAKER_CALLS", raw)
        assert.match(error.message, /VTREE_BREAKER_CALLS/)
        assert.notInclude(error.message, "\n")
      }
    }))
})
