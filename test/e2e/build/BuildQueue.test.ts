// `vtree build --db`, the built CLI: two workers on one PostgreSQL build queue, one killed with SIGKILL while it
// builds a video. The other takes the video over once its lease lapses, resumes it from the killed worker's
// checkpoints, and builds the rest: every video once, each call asked once (counted at the model simulators).
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { buildCallBodies, queuedBuildFlags, queuedVideos, treeCalls } from "../../support/build/QueuedBuild.js"
import { buildSim } from "../../support/build/SynthBuild.js"
import { run, simEnv, start, tempDir } from "../../support/harness/Cli.js"
import type { SyntheticVideo } from "../../support/media/SyntheticVideo.js"
import type * as OpenAiSim from "../../support/openai-sim/index.js"
import { query, useCluster } from "../../support/postgres/vitest.js"

const pg = useCluster()
const ids = ["q1", "q2", "q3", "q4"]
let work: ReturnType<typeof tempDir>
let videos: ReadonlyArray<SyntheticVideo>

beforeAll(async () => {
  work = tempDir()
  videos = await queuedVideos(work.dir, 4)
}, 120_000)

afterAll(() => work?.cleanup())

const waitUntil = async (check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  // The workers create the tables: until then a query fails, which is "not yet".
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const checkpointsOf = (out: string, videoId: string) => {
  const dir = join(out, videoId, ".vtree", "checkpoints")
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".json")).length : 0
}

describe("vtree build --db (built CLI, PostgreSQL, openai-sim)", () => {
  it(
    "two workers and a kill -9 of one: every video built once, the killed one's video resumed, each call asked once",
    async () => {
      const url = await pg.database("buildq")
      const out = join(work.dir, "trees")
      // One simulator per worker, so each call is traced to the worker that asked it; the first is slow enough
      // that the kill lands inside a video.
      const sims: ReadonlyArray<OpenAiSim.OpenAiSim> = [await buildSim(400), await buildSim(50)]
      try {
        const args = [
          "build",
          ...videos.map((v) => v.video),
          "--out",
          out,
          "--db",
          url,
          "--build-id",
          "fleet",
          ...queuedBuildFlags
        ]
        // A short lease, so the killed worker's video opens up within the test (heartbeats come every 0.5 s).
        const env = (sim: OpenAiSim.OpenAiSim) => simEnv(sim.url, { VTREE_LEASE_MS: "1500" })
        const victim = start(args, env(sims[0]!))
        const survivor = start(args, env(sims[1]!))
        const pid = victim.child.pid!
        let held = ""
        await waitUntil(async () => {
          const rows = await query<{ video_id: string }>(
            url,
            `SELECT video_id FROM build_videos WHERE status = 'open' AND claimed_by LIKE '%:${pid}:%'`
          )
          held = rows[0]?.video_id ?? ""
          return held !== "" && checkpointsOf(out, held) >= 1
        })
        victim.child.kill("SIGKILL")
        assert.strictEqual((await victim.done).signal, "SIGKILL")
        const saved = checkpointsOf(out, held)

        const result = await survivor.done
        assert.strictEqual(result.code, 0, result.stderr)
        assert.match(result.stderr, new RegExp(`building ${held} \\(.*\\), resumed from its checkpoints`))
        assert.match(result.stderr, /build fleet: 4\/4 videos \(/)

        // Every video built, once: done in the queue, its tree written; the killed one claimed twice, the rest once.
        const rows = await query<{ video_id: string; status: string; fence: number }>(
          url,
          "SELECT video_id, status, fence FROM build_videos WHERE build_id = 'fleet' ORDER BY video_id"
        )
        assert.deepStrictEqual(
          rows.map((row) => [row.video_id, row.status, Number(row.fence)]),
          ids.map((id) => [id, "done", id === held ? 2 : 1])
        )
        const expected = ids.reduce((n, id) => n + treeCalls(join(out, id)), 0)

        // Each call asked once: the survivor asked nothing twice, and nothing the killed worker had checkpointed;
        // only the call in flight when it died (never answered to it) was asked again.
        const [killedAsked, survivorAsked] = sims.map(buildCallBodies)
        assert.strictEqual(new Set(survivorAsked).size, survivorAsked!.length)
        const again = survivorAsked!.filter((body) => killedAsked!.includes(body))
        assert.isAtMost(again.length, 1)
        assert.strictEqual(new Set([...killedAsked!, ...survivorAsked!]).size, expected)
        assert.strictEqual(new Set(killedAsked).size, killedAsked!.length)
        assert.isAtLeast(saved, 1)

        // `vtree runs` lists the build with its progress.
        const listed = await run(["runs", "--db", url], {})
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.match(listed.stdout, /^fleet\s+completed\s+4\/4\s+[\d.]+\/[\d.]+\s+0\s+—\s/m)
      } finally {
        await Promise.all(sims.map((sim) => sim.close()))
      }
    },
    180_000
  )

  it(
    "SIGTERM hands the video in hand back: the build shows it open and unheld at once, its checkpoints kept",
    async () => {
      const url = await pg.database("buildterm")
      const out = join(work.dir, "term")
      const sim = await buildSim(400)
      try {
        const worker = start(
          ["build", ...videos.map((v) => v.video), "--out", out, "--db", url, "--build-id", "t", ...queuedBuildFlags],
          simEnv(sim.url)
        )
        await waitUntil(async () => checkpointsOf(out, "q1") >= 1)
        worker.child.kill("SIGTERM")
        const result = await worker.done
        assert.strictEqual(result.code, 130, result.stderr)
        assert.match(result.stderr, /^vtree: interrupted — the video in hand was handed back to build t; /m)
        const [row] = await query<{ status: string; claimed_by: string | null }>(
          url,
          "SELECT status, claimed_by FROM build_videos WHERE build_id = 't' AND video_id = 'q1'"
        )
        assert.deepStrictEqual(row, { status: "open", claimed_by: null })
        assert.isAtLeast(checkpointsOf(out, "q1"), 1)
      } finally {
        await sim.close()
      }
    },
    120_000
  )
})
