// Where a run stands, on stderr: a bar redrawn in place on a terminal, plain lines in logs and CI.
// Rendering is pure (tested directly); `makeProgress` only adds the clock and the writes.
import { Clock, Effect, Schedule, type Scope } from "effect"
import { formatUsd } from "../../domain/Cost.js"
import { outcomeOf } from "../../domain/Outcome.js"
import { formatCompactDuration } from "../../text/Format.js"
import { cutTerminalText, terminalText } from "../../text/TerminalText.js"
import type { BenchmarkEvent } from "./BenchmarkOptions.js"

export interface ProgressState {
  readonly runId: string
  readonly total: number
  /** Saved by an earlier attempt of the run. */
  readonly alreadyDone: number
  /** Finished by this invocation. */
  readonly finished: number
  /** Saved by other workers of a shared run since this one started, as the store last said. */
  readonly othersDone: number
  /** Live workers on the run, as the store last said (0: not known, a run of one). */
  readonly workers: number
  /** Finished questions that have a key: accuracy's denominator, as in the report. */
  readonly keyed: number
  readonly correct: number
  readonly errors: number
  readonly tokens: number
  /** USD of this invocation's questions at the run's prices, and how many of them had no known cost. */
  readonly spentUsd: number
  readonly unpriced: number
  /** When this invocation started its first question (epoch ms). */
  readonly startedAt: number
  /** The run's database is unreachable and being retried (until the next save or progress report). */
  readonly storeUnreachable?: boolean
}

export const initialState = (runId = "", startedAt = 0): ProgressState => ({
  runId,
  total: 0,
  alreadyDone: 0,
  finished: 0,
  othersDone: 0,
  workers: 0,
  keyed: 0,
  correct: 0,
  errors: 0,
  tokens: 0,
  spentUsd: 0,
  unpriced: 0,
  startedAt
})

export const applyEvent = (state: ProgressState, event: BenchmarkEvent, now: number): ProgressState => {
  switch (event._tag) {
    case "RunStarted":
      return { ...initialState(event.runId, now), total: event.total, alreadyDone: event.alreadyDone }
    case "QuestionFinished": {
      const outcome = outcomeOf(event.row)
      const cost = event.costUsd ?? null
      return {
        ...state,
        storeUnreachable: false,
        finished: state.finished + 1,
        keyed: state.keyed + (outcome === "unscored" ? 0 : 1),
        correct: state.correct + (outcome === "correct" ? 1 : 0),
        spentUsd: state.spentUsd + (cost ?? 0),
        unpriced: state.unpriced + (cost === null ? 1 : 0),
        errors: state.errors + (event.row.stopReason === "error" ? 1 : 0),
        tokens: state.tokens + event.row.promptTokens + event.row.completionTokens
      }
    }
    case "RunProgress":
      // Reports may arrive after this worker's own later saves: others' count only ever grows.
      return {
        ...state,
        storeUnreachable: false,
        total: event.total,
        othersDone: Math.max(state.othersDone, event.done - state.alreadyDone - state.finished),
        workers: event.workers
      }
    case "StoreUnreachable":
      return { ...state, storeUnreachable: true }
  }
}

/** Saved so far by every worker of the run. */
const doneOf = (state: ProgressState): number => state.alreadyDone + state.finished + state.othersDone

/** 1234 → 1.2k, 3456789 → 3.5M. */
export const compactCount = (n: number): string =>
  n < 1_000 ? String(n) : n < 1_000_000 ? `${(n / 1_000).toFixed(1)}k` : `${(n / 1_000_000).toFixed(1)}M`

/** Remaining time from the run's pace since this invocation started; unknown until a question is saved. */
export const eta = (state: ProgressState, now: number): number | null => {
  const progressed = state.finished + state.othersDone
  if (progressed === 0) return null
  return ((now - state.startedAt) / progressed) * Math.max(0, state.total - doneOf(state))
}

/** The facts shared by the bar and the plain line. */
export const describeProgress = (state: ProgressState, now: number): string => {
  const done = doneOf(state)
  // Over the keyed questions, as the report counts: a question without a key is neither right nor wrong.
  const accuracy = state.keyed === 0 ? "—" : `${((state.correct / state.keyed) * 100).toFixed(1)}%`
  const left = eta(state, now)
  return [
    ...(state.storeUnreachable === true ? ["database unreachable, retrying"] : []),
    `${done}/${state.total}`,
    // Accuracy, errors, tokens and USD are this worker's own: the store's count is all it reports of others.
    ...(state.workers > 1 ? [`${state.workers} workers (${state.finished} here)`] : []),
    `acc ${accuracy}`,
    ...(state.errors > 0 ? [`errors ${state.errors}`] : []),
    `tokens ${compactCount(state.tokens)}`,
    // Only a whole bill: one question whose calls had no price would make the sum an understatement.
    ...(state.finished > 0 && state.unpriced === 0 ? [formatUsd(state.spentUsd)] : []),
    `elapsed ${formatCompactDuration(now - state.startedAt)}`,
    `ETA ${left === null ? "—" : formatCompactDuration(left)}`
  ].join(" · ")
}

/** `[#######-------] 12/300 · acc 58.3% · …`, cut to `columns` so it never wraps (a wrap breaks `\r`). */
export const renderBar = (state: ProgressState, now: number, columns: number): string => {
  const done = doneOf(state)
  const width = Math.max(10, Math.min(30, Math.floor(columns / 4)))
  const filled = state.total === 0 ? 0 : Math.min(width, Math.round((done / state.total) * width))
  const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${describeProgress(state, now)}`
  return cutTerminalText(line, Math.max(0, columns - 1))
}

/** A log line: `vtree: run X: 12/300 · …`; the run id (a `--run-id`) is shown, never obeyed. */
export const renderLine = (state: ProgressState, now: number): string =>
  `vtree: run ${terminalText(state.runId)}: ${describeProgress(state, now)}`

export interface ProgressOutput {
  readonly write: (text: string) => void
  readonly isTTY: boolean
  /** Terminal width; 80 when unknown. */
  readonly columns?: number
}

export interface ProgressOptions {
  /** Plain mode: a line every this many finished questions (default: about every 5% of the run, ≥ 1). */
  readonly everyQuestions?: number
  /** Plain mode: and a line when this long passed without one (default 10 s). */
  readonly everyMs?: number
}

export interface Progress {
  readonly onEvent: (event: BenchmarkEvent) => Effect.Effect<void>
  /** Ends the display: the bar's final state stays on its own line. */
  readonly finish: Effect.Effect<void>
}

/** A progress display for one run. A ticker refreshes ETA and elapsed time until the scope closes. */
export const makeProgress = (
  output: ProgressOutput,
  options: ProgressOptions = {}
): Effect.Effect<Progress, never, Scope.Scope> =>
  Effect.gen(function*() {
    let state = initialState("", yield* Clock.currentTimeMillis)
    let started = false
    let lastLineAt = 0
    let lastLineDone = -1
    let barShown = false
    const everyMs = options.everyMs ?? 10_000
    const columns = () => output.columns ?? 80

    const draw = (now: number, force: boolean) => {
      if (!started) return
      if (output.isTTY) {
        output.write(`\r\x1b[2K${renderBar(state, now, columns())}`)
        barShown = true
        return
      }
      const done = state.finished
      const every = options.everyQuestions ?? Math.max(1, Math.round(state.total / 20))
      const due = force || (done !== lastLineDone && done % every === 0) || now - lastLineAt >= everyMs
      if (!due) return
      output.write(`${renderLine(state, now)}\n`)
      lastLineAt = now
      lastLineDone = done
    }

    const tick = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => draw(now, false)))
    yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced(output.isTTY ? "1 second" : "2 seconds")))

    const onEvent = (event: BenchmarkEvent) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          state = applyEvent(state, event, now)
          if (event._tag === "RunStarted") {
            started = true
            lastLineAt = now
            draw(now, true)
          } else {
            draw(now, false)
          }
        }))

    const finish = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() => {
        if (!started) return
        if (output.isTTY) {
          draw(now, true)
          if (barShown) output.write("\n")
        } else if (lastLineDone !== state.finished) {
          draw(now, true)
        }
        started = false
      }))

    return { onEvent, finish }
  })
