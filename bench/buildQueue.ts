// A queued build (`vtree build --db`, issue 42): videos an hour with 1, 2 and 4 worker processes sharing one
// PostgreSQL build queue and one --out, against an openai-sim that answers every build call after a fixed
// latency (as a GPU server would). Each worker builds one video at a time, longest first. Needs the built dist/.
import { mkdtempSync, rmSync } from "node:fs"
import * as os from "node:os"
import { join } from "node:path"
import { queuedBuildFlags, queuedVideos } from "../test/support/build/QueuedBuild.js"
import { answerBuildCalls } from "../test/support/openai-sim/builder.js"
import * as Sim from "../test/support/openai-sim/index.js"
import * as Postgres from "../test/support/postgres/index.js"
import { runCli } from "./harness.js"
import type { BenchModule } from "./run.js"

const latencyMs = 300
const videoCount = 12
const perWorker = 2

const flags = queuedBuildFlags.map((flag, i, all) => (all[i - 1] === "--concurrency" ? String(perWorker) : flag))

const run = async (): Promise<string> => {
  const dir = mkdtempSync(join(os.tmpdir(), "vtree-bench-buildq-"))
  const cluster = await Postgres.start()
  const sim = await Sim.start({
    intercept: (request) => {
      const reply = answerBuildCalls(request)
      return reply === undefined ? undefined : { ...reply, delayMs: latencyMs }
    }
  })
  try {
    const videos = await queuedVideos(dir, videoCount, 36)
    const seconds = videos.reduce((n, _, i) => n + Math.max(12, 36 - 6 * i), 0)
    const rows: Array<string> = []
    let single = 0
    for (const workers of [1, 2, 4]) {
      const url = await cluster.createDatabase(`bq${workers}`)
      const before = sim.requests.length
      const started = performance.now()
      const results = await Promise.all(Array.from({ length: workers }, () =>
        runCli(
          ["build", ...videos.map((v) => v.video), "--out", join(dir, `trees-${workers}`), "--db", url, ...flags],
          { VTREE_LLM_BASE_URL: sim.url, VTREE_LLM_MODEL: "llm", VTREE_VLM_MODEL: "vlm" }
        )))
      const wallMs = performance.now() - started
      for (const result of results) {
        if (result.code !== 0) throw new Error(`a build worker failed:\n${result.stderr}`)
      }
      const perHour = (videoCount / wallMs) * 3_600_000
      if (workers === 1) single = perHour
      rows.push(
        `| ${workers} | ${videoCount} | ${sim.requests.length - before} | ${(wallMs / 1000).toFixed(1)} s | ${
          Math.round(perHour).toLocaleString("en-US")
        } | ${(perHour / single).toFixed(2)}× |`
      )
    }
    // What `uptime` prints as the load average, read from the same kernel figures.
    const load = `load average: ${os.loadavg().map((n) => n.toFixed(2)).join(", ")}`
    return [
      "| workers | videos | model calls | wall time | videos/hour | vs 1 worker |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
      `${videoCount} synthetic videos of 12–36 s (${
        (seconds / 60).toFixed(1)
      } min in all, 160×90, two shots and two cues ` +
      `each), built with \`${flags.join(" ")}\` by 1, 2 and 4 \`vtree build --db postgres://…\` processes (the built ` +
      `CLI) sharing one build queue on a local PostgreSQL 15 and one --out, each from a fresh database and folder; ` +
      `openai-sim answers every event and scene call after ${latencyMs} ms. Wall time is from spawning the first ` +
      `worker to the last one exiting (start-up, probing every video, frame extraction and the tree writes ` +
      `included). Each worker builds one video at a time, so a worker's own rate is bounded by its longest video's ` +
      `chain of calls; the two shared cores (ffmpeg, the CLI) bound the rest. \`npx tsx bench/run.ts buildQueue\`; ` +
      `\`uptime\` at the end: ${load}.`
    ].join("\n")
  } finally {
    await sim.close()
    await cluster.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const module: BenchModule = { title: "Build queue: videos an hour with 1, 2 and 4 workers against the sim", run }
export default module
