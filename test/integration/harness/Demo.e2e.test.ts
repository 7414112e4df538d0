import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { root } from "../../support/harness/Cli.js"

// The README's first command is `npm ci && npm run demo`; this keeps it true. (The global setup has
// built dist/, which is what `npm run demo` builds before running the same script.)
describe("npm run demo", () => {
  it("runs vtree infer on the sample against the simulator, then the report", async () => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo.ts")], {
        cwd: root,
        // As on a machine without ffmpeg: the build step is skipped (test/integration/build/BuildDemo.e2e.test.ts runs it).
        env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp", VTREE_FFMPEG: "/nonexistent/ffmpeg" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, stdout, stderr }))
    })
    assert.strictEqual(result.code, 0, result.stderr)
    // The summary of `infer`, then the same run as `vtree report` shows it.
    const summaries = result.stdout.match(/^Run run-\S+ · completed/gm) ?? []
    assert.strictEqual(summaries.length, 2, result.stdout)
    assert.match(result.stdout, /^finished\s+7$/m)
    assert.match(result.stderr, /demo: simulator at http:\/\/127\.0\.0\.1:\d+\/v1/)
    assert.match(result.stderr, /^demo: ffmpeg not found — skipping vtree build, using the prebuilt tree in samples\/trees/m)
  }, 120_000)
})
