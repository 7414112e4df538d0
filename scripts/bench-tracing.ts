// CPU of `vtree infer` per agent call with trace export on (a loopback OTLP receiver) and off, and the
// wall time of a run with the collector down (a port nobody listens on), for BENCHMARKS.md "Tracing". Runs the built CLI (npm run build first) over the bundled sample against
// openai-sim; the CPU is the child process's user + system time as bash's `times` reports it, so the sim
// and the receiver (in this process) are not counted. Usage: tsx scripts/bench-tracing.ts [rounds]
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bin, samplesJsonl, samplesTrees, simEnv } from "../test/support/harness/Cli.js"
import { policyScripts, sampleQuestions } from "../test/support/harness/Policy.js"
import * as Sim from "../test/support/openai-sim/index.js"
import { startReceiver } from "../test/support/otlp/Receiver.js"

const rounds = Number(process.argv[2] ?? 5)
const questions = sampleQuestions()
const sim = await Sim.start({ chat: policyScripts({ questions }) })
const receiver = await startReceiver()

const seconds = (text: string) => {
  const match = /(\d+)m([\d.]+)s/.exec(text)
  return match === null ? Number.NaN : Number(match[1]) * 60 + Number(match[2])
}

/** One run: the child's CPU seconds and the agent calls it made. */
const once = async (env: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "vtree-bench-tracing-"))
  const db = join(dir, "runs.db")
  const args = ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", db, "--concurrency", "2"]
  // Asynchronous: the sim answering the CLI runs in this process's event loop.
  const child = spawn("bash", [
    "-c",
    `"${process.execPath}" "$@" >/dev/null 2>&1; echo "exit=$?"; times`,
    "_",
    bin,
    ...args
  ], {
    env: { PATH: process.env["PATH"] ?? "", HOME: dir, ...simEnv(sim.url, env) }
  })
  const started = performance.now()
  let stdout = ""
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
  await new Promise((resolve) => child.on("close", resolve))
  const wall = (performance.now() - started) / 1000
  const lines = stdout.trim().split("\n")
  if (lines[0] !== "exit=0") throw new Error(`vtree infer failed: ${stdout}`)
  const [user, system] = lines[2]!.trim().split(/\s+/).map(seconds)
  const handle = new Database(db, { readonly: true })
  const calls = (handle.prepare("SELECT count(*) AS n FROM llm_calls WHERE role = 'agent'").get() as { n: number }).n
  handle.close()
  rmSync(dir, { recursive: true, force: true })
  return { cpu: user! + system!, calls, wall }
}

// A loopback port that was free a moment ago: connections to it are refused, as to a collector that is down.
const deadPort = await new Promise<number>((resolve) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 9))
  })
})
const modes = {
  off: {},
  on: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  down: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${deadPort}` }
} as const
type Mode = keyof typeof modes
const totals = {
  off: { cpu: 0, calls: 0, wall: [] as Array<number> },
  on: { cpu: 0, calls: 0, wall: [] as Array<number> },
  down: { cpu: 0, calls: 0, wall: [] as Array<number> }
}
for (let round = 0; round < rounds; round++) {
  // Alternating, so drift on a shared machine falls on every mode.
  for (const mode of ["off", "on", "down"] as const) {
    const { calls, cpu, wall } = await once(modes[mode])
    totals[mode].cpu += cpu
    totals[mode].calls += calls
    totals[mode].wall.push(wall)
  }
}
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const perCall = (mode: Mode) => (totals[mode].cpu / totals[mode].calls) * 1000
console.log(
  `rounds ${rounds}, agent calls per run ${totals.off.calls / rounds}, spans received ${receiver.spans.length}`
)
console.log(`CPU per agent call, export off: ${perCall("off").toFixed(1)} ms`)
console.log(
  `CPU per agent call, export on:  ${perCall("on").toFixed(1)} ms (ratio ${
    (perCall("on") / perCall("off")).toFixed(2)
  })`
)
for (const mode of ["off", "on", "down"] as const) {
  console.log(
    `wall time per run, ${mode}: median ${median(totals[mode].wall).toFixed(2)} s (${
      totals[mode].wall.map((w) => w.toFixed(2)).join(", ")
    })`
  )
}
await receiver.close()
await sim.close()
