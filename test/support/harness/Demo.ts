import { spawn } from "node:child_process"
import { join } from "node:path"
import { root } from "./Cli.js"

/** Runs `scripts/demo.ts` as `npm run demo` does (dist/ already built), with `env` beside PATH and HOME. */
export const runDemo = (env: Readonly<Record<string, string>> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo.ts")], {
      cwd: root,
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })
