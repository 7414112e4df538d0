// `vtree build --shard i/n` and the flags of a queued build, run in-process with the real ffmpeg: the shards of a
// folder cover its videos exactly once, and flags that do not fit together are refused with one line naming them.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { queuedBuildFlags, queuedVideos } from "../../support/build/QueuedBuild.js"
import { buildSim } from "../../support/build/SynthBuild.js"
import { runCli } from "../../support/cli/InProcess.js"
import { simEnv, tempDir } from "../../support/harness/Cli.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"
import { useCluster } from "../../support/postgres/vitest.js"

const pg = useCluster()
const ids = ["q1", "q2", "q3", "q4", "q5"]
let work: ReturnType<typeof tempDir>
let sim: OpenAiSim.OpenAiSim

beforeAll(async () => {
  work = tempDir()
  await queuedVideos(work.dir, ids.length, 24)
  sim = await buildSim()
}, 120_000)

afterAll(async () => {
  await sim?.close()
  work?.cleanup()
})

describe("vtree build --shard / --db flags (live ffmpeg, openai-sim)", () => {
  it("three shards of a folder build each of its videos exactly once", async () => {
    const out = join(work.dir, "sharded")
    const builtBy = new Map<string, number>()
    for (const shard of [1, 2, 3]) {
      const result = await runCli(
        ["build", work.dir, "--out", out, "--shard", `${shard}/3`, ...queuedBuildFlags],
        simEnv(sim.url)
      )
      assert.strictEqual(result.code, 0, result.stderr)
      for (const id of ids) {
        if (new RegExp(`^${id}\\s`, "m").test(result.stdout)) builtBy.set(id, (builtBy.get(id) ?? 0) + 1)
      }
    }
    assert.deepStrictEqual([...builtBy.keys()].sort(), ids)
    assert.isTrue([...builtBy.values()].every((n) => n === 1))
    for (const id of ids) assert.isTrue(existsSync(join(out, id, "tree.json")), id)
  }, 120_000)

  it("refuses --shard that is not i/n, naming the flag", async () => {
    const result = await runCli(["build", work.dir, "--out", join(work.dir, "x"), "--shard", "4/3"], simEnv(sim.url))
    assert.strictEqual(result.code, 1)
    assert.strictEqual(
      result.stderr.trim(),
      "vtree: --shard 4/3: expected i/n with whole numbers 1 ≤ i ≤ n (--shard 1/4 … --shard 4/4 split the videos over four machines)"
    )
  })

  it("refuses --build-id without --db, and --shard or --force with --db", async () => {
    const url = await pg.database("shardflags")
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--build-id", "b"], "vtree: --build-id b: names a build in a database — give --db too"],
      [
        ["--db", url, "--shard", "1/2"],
        "vtree: --shard 1/2 with --db: the database's queue shares the videos out among its workers — leave out --shard"
      ],
      [
        ["--db", url, "--force"],
        "vtree: --force with --db: a video taken over from another worker would ask its checkpointed calls again — " +
        "remove the trees' .vtree/checkpoints before the build instead, or leave out --force"
      ]
    ]
    for (const [flags, message] of cases) {
      const result = await runCli(["build", work.dir, "--out", join(work.dir, "y"), ...flags], simEnv(sim.url))
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stderr.trim(), message)
    }
  })

  it(
    "a second worker with other settings is refused, naming the difference; the build's own workers go on",
    async () => {
      const url = await pg.database("settings")
      const out = join(work.dir, "queued")
      const first = await runCli(
        ["build", work.dir, "--out", out, "--db", url, "--build-id", "b1", ...queuedBuildFlags],
        simEnv(sim.url)
      )
      assert.strictEqual(first.code, 0, first.stderr)
      assert.match(first.stderr, /^vtree: started build b1: 0\/5 videos/m)
      const other = await runCli(
        [
          "build",
          work.dir,
          "--out",
          out,
          "--db",
          url,
          "--build-id",
          "b1",
          ...queuedBuildFlags.map((flag, i, all) => (all[i - 1] === "--frame-width" ? "320" : flag))
        ],
        simEnv(sim.url)
      )
      assert.strictEqual(other.code, 1)
      assert.strictEqual(
        other.stderr.trim(),
        "vtree: --build-id b1: the build was started with other settings (--frame-width: the build's 160, this worker's " +
          "320) — start every worker of a build with the same settings, or give another --build-id"
      )
      // The same settings join, and find nothing left to build.
      const again = await runCli(
        ["build", work.dir, "--out", out, "--db", url, "--build-id", "b1", ...queuedBuildFlags],
        simEnv(sim.url)
      )
      assert.strictEqual(again.code, 0, again.stderr)
      assert.match(again.stderr, /^vtree: joined build b1: 5\/5 videos/m)
    },
    120_000
  )
})
