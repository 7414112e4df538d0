// What the report benchmarks share: timing a command of the built CLI, and reading back how fast headless
// Chromium opens a report page. Needs the built dist/ and Debian's chromium.
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { dumpDom } from "../test/support/harness/Chromium.js"
import { median } from "./stats.js"

const bin = join(fileURLToPath(new URL("..", import.meta.url)), "dist", "bin.js")

/** Wall time of `vtree …args` in `cwd`, Node's start included; throws on a non-zero exit. */
export const timeCli = (args: ReadonlyArray<string>, cwd: string): number => {
  const started = performance.now()
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", maxBuffer: 1 << 30 })
  if (result.status !== 0) throw new Error(`vtree ${args.join(" ")}: ${result.stderr}`)
  return performance.now() - started
}

// Appended to a copy of the page: the load event's time since navigation start, read back from the DOM.
const probe = `<script>addEventListener("load", () => { const n = performance.getEntriesByType("navigation")[0];` +
  ` document.body.dataset.loaded = String(Math.round(n.loadEventStart)); document.body.dataset.dcl = String(Math.round(n.domContentLoadedEventEnd)); });</script>`

/** Writes a copy of `page` (beside it, `.probed.html`) that records its own navigation timing; returns its path. */
export const probedCopy = (page: string): string => {
  const probed = page.replace(/\.html$/, ".probed.html")
  writeFileSync(probed, readFileSync(page, "utf8").replace("</body>", `${probe}</body>`))
  return probed
}

/** Opens a probed page `runs` times in headless Chromium: the median load and DOMContentLoaded, in ms. */
export const loadTimes = (probed: string, runs: number) => {
  const loads: Array<number> = []
  const dcls: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const dom = dumpDom(probed)
    loads.push(Number(/data-loaded="(\d+)"/.exec(dom)?.[1] ?? NaN))
    dcls.push(Number(/data-dcl="(\d+)"/.exec(dom)?.[1] ?? NaN))
  }
  return { load: median(loads), dcl: median(dcls) }
}

/** Milliseconds as the report tables print them: whole, with thousands separators. */
export const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`
