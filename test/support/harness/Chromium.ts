// Headless Chromium (Debian's `chromium`) for checks of the html report as a browser draws it: a
// screenshot decoded to pixels, or the DOM after the page's script ran. `.ci/run` installs it when missing.
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { PNG } from "pngjs"
import { makeTempDir, removeTempDir, withTempDir } from "../TempDir.js"

export const chromiumBinary = ["chromium", "chromium-browser", "google-chrome"].find((name) =>
  spawnSync(name, ["--version"], { encoding: "utf8" }).status === 0
)

const run = (args: ReadonlyArray<string>): string => {
  if (chromiumBinary === undefined) throw new Error("no chromium on PATH: install Debian's chromium (.ci/run does)")
  const profile = makeTempDir("chromium")
  try {
    // Root in CI containers needs --no-sandbox; a private profile lets tests run side by side.
    const result = spawnSync(chromiumBinary, [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      ...args
    ], { encoding: "utf8", maxBuffer: 512 * 1024 * 1024, timeout: 120_000 })
    if (result.status !== 0) throw new Error(`chromium exited ${result.status}: ${result.stderr.slice(-500)}`)
    return result.stdout
  } finally {
    removeTempDir(profile)
  }
}

export interface Screenshot {
  readonly width: number
  readonly height: number
  /** RGBA, row-major. */
  readonly data: Buffer
}

/** `settleMs`: virtual time Chromium runs before it captures (images loaded lazily, a script's work). */
export const screenshot = (
  file: string,
  width: number,
  height: number,
  options: { readonly settleMs?: number } = {}
): Screenshot => {
  return withTempDir("shot", (dir) => {
    const out = join(dir, "page.png")
    run([
      `--window-size=${width},${height}`,
      ...(options.settleMs === undefined ? [] : [`--virtual-time-budget=${options.settleMs}`]),
      `--screenshot=${out}`,
      `file://${file}`
    ])
    const png = PNG.sync.read(readFileSync(out))
    return { width: png.width, height: png.height, data: png.data }
  })
}

/** The serialized DOM after load, scripts run. */
/**
 * The DOM after the page loaded. `settleMs` lets the page's asynchronous work (a trajectory unpacked on
 * opening) finish first: Chromium runs that much virtual time before it dumps.
 */
export const dumpDom = (file: string, options: { readonly settleMs?: number } = {}): string =>
  run([
    ...(options.settleMs === undefined ? [] : [`--virtual-time-budget=${options.settleMs}`]),
    "--dump-dom",
    `file://${file}`
  ])

/** Pixels within `tolerance` (per channel) of `#rrggbb`. */
export const countColor = (shot: Screenshot, hex: string, tolerance = 8): number => {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number]
  let count = 0
  for (let i = 0; i < shot.data.length; i += 4) {
    if (
      Math.abs(shot.data[i]! - r) <= tolerance && Math.abs(shot.data[i + 1]! - g) <= tolerance &&
      Math.abs(shot.data[i + 2]! - b) <= tolerance
    ) count++
  }
  return count
}
