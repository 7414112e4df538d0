import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Scope, TestClock } from "effect"
import { join } from "node:path"
import { defaultIdleTimeToLive, makeTreeLibrary } from "../../../src/programs/tree/TreeLibrary.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

/** `count` one-event trees, each in `<temp>/V<n>`. */
const treeFolders = (count: number) =>
  Effect.gen(function*() {
    const root = yield* scopedTempDir("library")
    return Array.from({ length: count }, (_, n) => {
      const dir = join(root, `V${n}`)
      writeTree(dir, syntheticTree({ videoId: `V${n}`, scenes: 1, eventsPerScene: 1, framesPerEvent: 2 }), {
        frames: false
      })
      return dir
    })
  })

/** What `loaded` lists for tree folders. */
const files = (...dirs: ReadonlyArray<string | undefined>) => dirs.map((dir) => join(dir!, "tree.json"))

layer(NodeContext.layer)("TreeLibrary", (it) => {
  it.scoped("opens a folder's tree once for every caller, and its environment once", () =>
    Effect.gen(function*() {
      const [dir] = yield* treeFolders(1)
      const library = yield* makeTreeLibrary()
      const [a, b] = yield* Effect.all([library.open(dir!), library.open(join(dir!, "tree.json"))], {
        concurrency: 2
      })
      assert.strictEqual(b.index, a.index)
      const c = yield* library.open(dir!)
      assert.strictEqual(c.index, a.index)
      assert.strictEqual(yield* c.environment, yield* a.environment)
      assert.strictEqual(a.dir, dir)
    }))

  it.scoped("at capacity, the least recently used idle tree makes room; a held one stays", () =>
    Effect.gen(function*() {
      const [a, b, c, d] = yield* treeFolders(4)
      const library = yield* makeTreeLibrary({ capacity: 2 })
      const holding = yield* Scope.make()
      yield* library.open(a!).pipe(Scope.extend(holding))
      yield* Effect.scoped(library.open(b!))
      yield* Effect.scoped(library.open(c!))
      assert.sameMembers(yield* library.loaded, files(a, c))
      yield* Scope.close(holding, Exit.void)
      yield* Effect.scoped(library.open(c!))
      yield* Effect.scoped(library.open(d!))
      assert.sameMembers(yield* library.loaded, files(c, d))
    }))

  it.scoped("a tree nobody holds is dropped after the idle time; drop forgets one at once", () =>
    Effect.gen(function*() {
      const [a, b] = yield* treeFolders(2)
      const library = yield* makeTreeLibrary()
      yield* Effect.scoped(library.open(a!))
      yield* Effect.scoped(library.open(b!))
      yield* library.drop(b!)
      assert.deepStrictEqual(yield* library.loaded, files(a))
      yield* TestClock.adjust(Duration.subtract(defaultIdleTimeToLive, Duration.seconds(1)))
      assert.deepStrictEqual(yield* library.loaded, files(a))
      yield* TestClock.adjust(Duration.seconds(1))
      assert.deepStrictEqual(yield* library.loaded, [])
    }))

  it.scoped("a tree held past the idle time stays; the time counts from its release", () =>
    Effect.gen(function*() {
      const [a] = yield* treeFolders(1)
      const library = yield* makeTreeLibrary({ idleTimeToLive: "1 minute" })
      // Opened before the clock moves: a fork that reads the folder may not have started its sleep by then.
      const holding = yield* Scope.make()
      yield* library.open(a!).pipe(Scope.extend(holding))
      yield* TestClock.adjust("10 minutes")
      assert.deepStrictEqual(yield* library.loaded, files(a))
      yield* Scope.close(holding, Exit.void)
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(yield* library.loaded, files(a))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* library.loaded, [])
    }))
})
