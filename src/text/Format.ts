// Numbers and times as a person reads them, in one place: counts (`12,345` in tables, `12k` on a progress
// line), shares and intervals in percent, a moment or a span of a video (`1:02:02`, `12:34–12:56`),
// and elapsed wall time (`2m 05s` in reports, `1m15s` in progress lines). Machine formats (json, the
// agent's tool text, `<t0>-<t1>s`, which its prompts are written for) keep plain seconds and do not use these.

import type { Interval } from "../domain/Stats.js"

/** Every digit, grouped by thousands: `12,345` (tables, totals). */
export const formatCount = (n: number): string => n.toLocaleString("en-US")

/** `1 scene`, `2 scenes`, `1,200 frames`: a count and its noun, singular for one (nouns with a plain -s plural). */
export const countOf = (n: number, noun: string): string => `${formatCount(n)} ${noun}${n === 1 ? "" : "s"}`

/** Rounded for a line that changes as you watch it: `950`, `12k`, `1.2M`. */
export const formatCompactCount = (n: number): string =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n)

/** A share in percent with one decimal: `41.2%`; `—` when unknown. */
export const formatPercent = (value: number | null): string => value === null ? "—" : `${(value * 100).toFixed(1)}%`

/** `[41.2–58.8]`, the 95 % interval in percent; `—` without one. */
export const formatInterval = (interval: Interval | null): string =>
  interval === null ? "—" : `[${(interval.low * 100).toFixed(1)}–${(interval.high * 100).toFixed(1)}]`

/** `m:ss` under an hour, `h:mm:ss` from an hour on; the second a moment falls in, as a player shows it. */
export const videoTime = (seconds: number): string => {
  if (!Number.isFinite(seconds)) return "—"
  // A frame stored at 11.9999… is at 0:12 for the eye; anything finer than a millisecond is float noise.
  const total = Math.floor(Math.max(0, seconds) + 1e-3)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const ss = String(total % 60).padStart(2, "0")
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`
}

/** `start–end` of a node's time range. */
export const videoSpan = ([start, end]: readonly [number, number]): string => `${videoTime(start)}–${videoTime(end)}`

/** Elapsed milliseconds in a report: `1.2s`, `2m 05s`, `1h 02m 03s`; `—` when unknown. */
export const formatDuration = (ms: number | null): string => {
  if (ms === null) return "—"
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const total = Math.round(ms / 1000)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const mm = String(m).padStart(2, "0")
  const ss = String(s).padStart(2, "0")
  return h > 0 ? `${h}h ${mm}m ${ss}s` : `${m}m ${ss}s`
}

/** Elapsed milliseconds on a progress line: `4s`, `1m15s`; hours shown past 60 minutes (`1h02m`). */
export const formatCompactDuration = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  return h > 0 ? `${h}h${String(m).padStart(2, "0")}m` : m > 0 ? `${m}m${String(s).padStart(2, "0")}s` : `${s}s`
}
