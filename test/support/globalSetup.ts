import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

// End-to-end tests spawn `node dist/bin.js`; build once so they always run the code under test,
// never a stale dist/ left from an earlier checkout. Type errors are `npm run check`'s job: tsc
// still emits, so a type error elsewhere does not stop unrelated tests from running.
export default function setup() {
  const root = fileURLToPath(new URL("../..", import.meta.url))
  const result = spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, encoding: "utf8" })
  if (result.status !== 0) {
    process.stderr.write(`globalSetup: tsc reported problems (run npm run check):\n${result.stdout.slice(0, 2000)}\n`)
  }
  if (!existsSync(`${root}/dist/bin.js`)) throw new Error("globalSetup: dist/bin.js was not built")
}
