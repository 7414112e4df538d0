import { it } from "@effect/vitest"

// A setup file: vitest runs it again before every test file, even though each worker keeps one module
// graph for all its files (`isolate: false`, vitest.config.ts).
//
// @effect/vitest 0.x's `layer(L)(…)` and `it.layer(L)(…)` bind `effect`, `scoped`, `prop`,
// `flakyTest` and `layer` onto vitest's own `it` object (Object.assign), so once one file has used
// them, every later `it.effect` in the same worker runs in that layer's runtime: one TestClock shared
// by tests that each expect time to start at 0. (Upstream stopped mutating the shared API in
// effect-smol's @effect/vitest, PR #2177.) The methods as loaded, before any test file ran, are kept
// on the worker's global and put back here, so every file starts with a fresh TestContext per test.
const key = Symbol.for("vtree/test/pristine-effect-it")
const methods = ["effect", "scoped", "prop", "flakyTest", "layer"] as const
type Methods = Pick<typeof it, (typeof methods)[number]>
const store = globalThis as { [key]?: Methods }
store[key] ??= Object.fromEntries(methods.map((name) => [name, it[name]])) as unknown as Methods
Object.assign(it, store[key])
