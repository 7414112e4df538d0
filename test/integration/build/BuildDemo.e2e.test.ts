import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { root } from "../../support/harness/Cli.js"

// `npm run demo` with ffmpeg present: it builds a tree from samples/video, then infers over it and the
// prebuilt sample tree, then reports. (The global setup has built dist/.)
describe("npm run demo (with ffmpeg)", () => {
  it("builds the sample video's tree, then infer and report run over both trees", async () => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo.ts")], {
        cwd: root,
        env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp" },
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
    assert.match(result.stderr, /^demo: vtree build samples\/video\/vtDemo0001a\.mp4 --out /m)
    // The build's summary row: 30 s, 15 frames all sent, two vision calls or more, one scene call.
    assert.match(result.stdout, /^vtDemo0001a\s+0\.5 min\s+15\s+\d+\s+1\s+\d+\s+1\s+0\s/m)
    const summaries = result.stdout.match(/^Run run-\S+ · completed/gm) ?? []
    assert.strictEqual(summaries.length, 2, result.stdout)
    assert.match(result.stdout, /^finished\s+9$/m)
    assert.match(result.stdout, /^short\s+\d+\s+2\s/m)
  }, 180_000)
})
