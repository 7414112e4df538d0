// CPU of `vtree infer` per agent call with trace export on (a loopback OTLP receiver) and off, and the
// wall time of a run with the collector down (a port nobody listens on) and black-holed (a loopback server
// that accepts and never answers), for BENCHMARKS.md "Tracing". Runs the built CLI (npm run build first)
// over the bundled sample against
// openai-sim; the CPU is the child process's user + system time as bash's `times` reports it, so the sim
// and the receiver (in this process) are not counted. Usage: tsx scripts/bench-tracing.ts [rounds]
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bin, samplesJsonl, samplesTrees, simEnv } from "../test/support/harness/Cli.js"
import { policyScripts, sampleQuestions } from "../test/support/harness/Policy.js"
import * as Sim from "../test/support/openai-sim/index.js"
import { closedPort, startBlackHole, startReceiver } from "../test/support/otlp/Receiver.js"

const rounds = Number(process.argv[2] ?? 5)
const questions = sampleQuestions()
const sim = await Sim.start({ chat: policyScripts({ questions }) })
const receiver = await startReceiver()

const seconds = (text: string) => {
  const match = /(\d+)m([\d.]+)s/.exec(text)
  return match === null ? Number.NaN : Number(match[1]) * 60 + Number(match[2])
}

/**
 * One run: the child's CPU seconds, the agent calls it made, its wall time, and its exit lag: from the
 * last line it printed (the run's summary, after which only the flush at exit is left) to its exit.
 */
const once = async (env: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "vtree-bench-tracing-"))
  const db = join(dir, "runs.db")
  const args = ["infer", "--trees", samplesTrees, "--questions", samplesJsonl, "--db", db, "--concurrency", "2"]
  // Asynchronous: the sim answering the CLI runs in this process's event loop. The CLI's own stdout goes to
  // fd 3, bash's report of it to stdout.
  const child = spawn("bash", [
    "-c",
    `"${process.execPath}" "$@" 1>&3 2>/dev/null; echo "exit=$?"; times`,
    "_",
    bin,
    ...args
  ], {
    env: { PATH: process.env["PATH"] ?? "", HOME: dir, ...simEnv(sim.url, env) },
    stdio: ["ignore", "pipe", "ignore", "pipe"]
  })
  const started = performance.now()
  let stdout = ""
  let lastPrinted = started
  let exited = Number.NaN
  ;(child.stdio[3] as NodeJS.ReadableStream).on("data", () => (lastPrinted = performance.now()))
  child.stdout!.on("data", (chunk: Buffer) => {
    if (stdout === "") exited = performance.now()
    stdout += chunk.toString("utf8")
  })
  await new Promise((resolve) => child.on("close", resolve))
  const wall = (performance.now() - started) / 1000
  const lines = stdout.trim().split("\n")
  if (lines[0] !== "exit=0") throw new Error(`vtree infer failed: ${stdout}`)
  const [user, system] = lines[2]!.trim().split(/\s+/).map(seconds)
  const handle = new Database(db, { readonly: true })
  const calls = (handle.prepare("SELECT count(*) AS n FROM llm_calls WHERE role = 'agent'").get() as { n: number }).n
  handle.close()
  rmSync(dir, { recursive: true, force: true })
  return { cpu: user! + system!, calls, wall, lag: (exited - lastPrinted) / 1000 }
}

const deadPort = await closedPort()
const hole = await startBlackHole()
const modes = {
  off: {},
  on: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  down: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${deadPort}` },
  hole: { OTEL_EXPORTER_OTLP_ENDPOINT: hole.url }
} as const
type Mode = keyof typeof modes
const modeNames = Object.keys(modes) as Array<Mode>
const totals = Object.fromEntries(
  modeNames.map((mode) => [mode, { cpu: 0, calls: 0, wall: [] as Array<number>, lag: [] as Array<number> }])
) as Record<Mode, { cpu: number; calls: number; wall: Array<number>; lag: Array<number> }>
for (let round = 0; round < rounds; round++) {
  // Alternating, so drift on a shared machine falls on every mode.
  for (const mode of modeNames) {
    const { calls, cpu, lag, wall } = await once(modes[mode])
    totals[mode].cpu += cpu
    totals[mode].calls += calls
    totals[mode].wall.push(wall)
    totals[mode].lag.push(lag)
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
const list = (values: ReadonlyArray<number>) => values.map((v) => v.toFixed(2)).join(", ")
for (const mode of modeNames) {
  const { lag, wall } = totals[mode]
  console.log(
    `${mode}: wall time per run median ${median(wall).toFixed(2)} s (${list(wall)}); exit lag median ${
      median(lag).toFixed(2)
    } s (${list(lag)})`
  )
}
await receiver.close()
await hole.close()
await sim.close()
