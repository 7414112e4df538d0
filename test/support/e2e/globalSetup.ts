import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

// The e2e project's tests (test/e2e, vitest.config.ts) spawn `node dist/bin.js`; build once so they always run the code under test,
// never a stale dist/ left from an earlier checkout. Type errors are `npm run check`'s job: tsc
// still emits, so a type error elsewhere does not stop unrelated tests from running. The CLI entry is
// then bundled into dist/bundle exactly as `npm run build` does it (dist/bin.js launches it), so the
// tests exercise what users run.
export default function setup() {
  const root = fileURLToPath(new URL("../../..", import.meta.url))
  const compiled = spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, encoding: "utf8" })
  if (compiled.status !== 0) {
    process.stderr.write(`globalSetup: tsc reported problems (run npm run check):\n${compiled.stdout.slice(0, 2000)}\n`)
  }
  const bundled = spawnSync("npm", ["run", "-s", "bundle"], { cwd: root, encoding: "utf8" })
  if (bundled.status !== 0) throw new Error(`globalSetup: bundling dist/bundle failed:\n${bundled.stderr}`)
  if (!existsSync(`${root}/dist/bin.js`) || !existsSync(`${root}/dist/bundle/main.mjs`)) {
    throw new Error("globalSetup: dist/bin.js or dist/bundle/main.mjs was not built")
  }
}
