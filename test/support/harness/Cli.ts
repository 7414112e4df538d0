// Spawning the built CLI (`node dist/bin.js …`, the e2e project) with a controlled environment, and
// reading the run database a run wrote (the in-process runner, test/support/cli/InProcess.ts, shares
// these helpers). The environment is built from scratch so a developer's own OPENAI_* / VTREE_*
// variables never leak into a test.
import { assert } from "@effect/vitest"
import Database from "better-sqlite3"
import { type ChildProcess, spawn } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { makeTempDir, removeTempDir } from "../TempDir.js"
import { agentModel, toolModel, vlmModel } from "./Policy.js"

export const root = fileURLToPath(new URL("../../..", import.meta.url))
export const bin = join(root, "dist", "bin.js")
export const samplesTrees = join(root, "samples", "trees")
export const samplesJsonl = join(root, "samples", "questions.jsonl")
export const samplesDir = join(root, "samples", "questions")

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** The provider variables pointing every role at the sim, with quick retries for tests. */
export const simEnv = (url: string, extra: Record<string, string> = {}): Record<string, string> => ({
  VTREE_LLM_BASE_URL: url,
  VTREE_LLM_MODEL: agentModel,
  VTREE_TOOL_LLM_MODEL: toolModel,
  VTREE_VLM_MODEL: vlmModel,
  VTREE_PROVIDER_RETRIES: "2",
  VTREE_STEP_RETRY_BASE_MS: "20",
  ...extra
})

const baseEnv = (): Record<string, string> => ({
  PATH: process.env["PATH"] ?? "",
  HOME: process.env["HOME"] ?? tmpdir(),
  NODE_ENV: "test"
})

export interface Running {
  readonly child: ChildProcess
  readonly done: Promise<CliResult>
  readonly stdout: () => string
  readonly stderr: () => string
}

export const start = (args: ReadonlyArray<string>, env: Record<string, string>, cwd = root): Running => {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...baseEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, done, stdout: () => stdout, stderr: () => stderr }
}

/**
 * How the process ended, once it has; a process still running `ms` after the call is killed and the
 * test fails (a bound on a signal's effect, generous enough never to be a race with a working CLI).
 */
export const endsWithin = async (running: Running, ms: number): Promise<CliResult> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))
  const ended = await Promise.race([running.done, late])
  clearTimeout(timer)
  if (ended !== undefined) return ended
  running.child.kill("SIGKILL")
  await running.done
  throw new Error(`the process was still running ${ms} ms later (killed); stderr:\n${running.stderr()}`)
}

export const run = (args: ReadonlyArray<string>, env: Record<string, string>): Promise<CliResult> =>
  start(args, env).done

/** Asserts that a refusal printed one `vtree:` line and no stack trace; returns that line. */
export const oneLine = (stderr: string): string => {
  const lines = stderr.trim().split("\n")
  assert.strictEqual(lines.length, 1, stderr)
  assert.match(lines[0]!, /^vtree: /)
  assert.notInclude(stderr, "    at ")
  return lines[0]!
}

export const tempDir = (): { readonly dir: string; readonly cleanup: () => void } => {
  const dir = makeTempDir("e2e")
  return { dir, cleanup: () => removeTempDir(dir) }
}

export interface DbPrediction {
  readonly run_id: string
  readonly question_id: string
  readonly prediction: string | null
  readonly answer: string | null
  readonly correct: number
  readonly stop_reason: string
  readonly error: string | null
  readonly steps_used: number
  readonly duration: string | null
  readonly prompt_tokens: number
}

/** Reads a run database without holding it open (the CLI may be writing it meanwhile; WAL allows that). */
export const readDb = <A>(file: string, read: (db: Database.Database) => A): A => {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}

export const predictions = (file: string): ReadonlyArray<DbPrediction> =>
  readDb(file, (db) => db.prepare("SELECT * FROM predictions ORDER BY question_id").all() as Array<DbPrediction>)

export const runs = (file: string): ReadonlyArray<{ run_id: string; status: string; config_json: string }> =>
  readDb(
    file,
    (db) =>
      db.prepare("SELECT * FROM runs ORDER BY started_at").all() as Array<
        { run_id: string; status: string; config_json: string }
      >
  )

/** Whether every run claim in `file` has expired (a killed owner's lease ran out): a resume may take over. */
export const leasesExpired = (file: string): boolean =>
  (readDb(file, (db) => (db.prepare("SELECT max(expires_at) AS t FROM run_claims").get() as { t: number | null }).t) ??
    0) < Date.now()

/** Counts predictions, or 0 while the file or its tables do not exist yet. */
export const countPredictions = (file: string): number => {
  try {
    return readDb(file, (db) => (db.prepare("SELECT count(*) AS n FROM predictions").get() as { n: number }).n)
  } catch {
    return 0
  }
}

export const waitUntil = async (predicate: () => boolean, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("waitUntil: timed out")
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
