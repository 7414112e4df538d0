// What `vtree report` does, loaded when it runs (cli/LazyCommand.ts); its options are in ReportCommand.ts.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { costOfCalls, type Prices } from "../../domain/Cost.js"
import { runControl } from "../../domain/RunConfig.js"
import { summarize } from "../../programs/report/Report.js"
import {
  compareRuns,
  NoSharedQuestions,
  renderCompareJson,
  renderCompareText
} from "../../programs/report/ReportCompare.js"
import { renderCompareHtml } from "../../programs/report/ReportCompareHtml.js"
import { frameMarkup, reportFrames } from "../../programs/report/ReportFrames.js"
import { renderHtml } from "../../programs/report/ReportHtml.js"
import { renderRepeatsJson, renderRepeatsText, repeatsOf } from "../../programs/report/ReportRepeats.js"
import { renderJson, renderText } from "../../programs/report/ReportText.js"
import { runSettings, storedPrices } from "../../programs/report/RunSettings.js"
import type { ReportCall } from "../../programs/report/Summary.js"
import { relativeHref } from "../../programs/tree/FrameImages.js"
import * as Media from "../shared/MediaLayers.js"
import { databaseFiles, runInputs, writeResult } from "../shared/OutputFile.js"
import { loadPrices } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"
import type { ReportArgs } from "./ReportCommand.js"

/**
 * Why `vtree report` printed nothing: arguments that do not fit together, a database without runs, two
 * runs without a common question, or an output file that cannot be written.
 */
export const ReportErrorReason = Schema.Literal("BadArguments", "NoRuns", "NoSharedQuestions", "WriteFailed")
export type ReportErrorReason = typeof ReportErrorReason.Type

export class ReportError extends Schema.TaggedError<ReportError>()("ReportError", {
  reason: ReportErrorReason,
  message: Schema.String
}) {}

/** `FILE#RUN` names a run in another database; a bare id lives in `fallbackDb`. */
export const parseRunRef = (ref: string, fallbackDb: string): { readonly db: string; readonly runId: string } => {
  const hash = ref.lastIndexOf("#")
  return hash <= 0 ? { db: fallbackDb, runId: ref } : { db: ref.slice(0, hash), runId: ref.slice(hash + 1) }
}

// A text report is read on the terminal (Console renders it); json and html are data, kept as they are.
const writeOut = (
  body: string,
  args: { readonly out: Option.Option<string>; readonly format: string },
  dbs: ReadonlyArray<string>,
  runs: ReadonlyArray<Parameters<typeof runInputs>[0]>,
  what: string
) =>
  writeResult({
    body,
    out: args.out,
    inputs: [...dbs.flatMap(databaseFiles), ...runs.flatMap(runInputs)],
    data: args.format !== "text",
    what
  })

const costPerQuestion = (calls: ReadonlyArray<ReportCall>, prices: Prices) => {
  const byQuestion = new Map<string, Array<ReportCall>>()
  for (const c of calls) {
    if (c.questionId === null) continue
    const list = byQuestion.get(c.questionId)
    if (list === undefined) byQuestion.set(c.questionId, [c])
    else list.push(c)
  }
  return (questionId: string) => costOfCalls(byQuestion.get(questionId) ?? [], prices)
}

const compareCommand = Effect.fn("ReportCommand.compare")(function*(args: {
  readonly db: string
  readonly dbB: Option.Option<string>
  readonly runs: ReadonlyArray<string>
  readonly format: "text" | "json" | "html"
  readonly out: Option.Option<string>
  readonly prices: Option.Option<string>
  readonly bootstrap: number
  readonly seed: number
}) {
  if (args.runs.length !== 2) {
    return yield* new ReportError({
      reason: "BadArguments",
      message: `--compare needs two runs, got ${args.runs.length} — write \`vtree report --compare RUN_A RUN_B\``
    })
  }
  const refA = parseRunRef(args.runs[0]!, args.db)
  const refB = parseRunRef(args.runs[1]!, Option.getOrElse(args.dbB, () => args.db))
  if (refA.runId === refB.runId && Stores.databaseKey(refA.db) === Stores.databaseKey(refB.db)) {
    return yield* new ReportError({
      reason: "BadArguments",
      message: `--compare ${args.runs[0]} ${args.runs[1]}: both name the same run, ${refA.runId} of ${
        Stores.displayDb(refA.db)
      } — compare two different runs`
    })
  }
  const stores = yield* Stores.RunStores
  // Every format reads the steps: frames sent per question (the cost distribution) are counted from them.
  const options = { includeSteps: true }
  // A database is opened only when a run is read from it: FILE#RUN on both sides never opens --db.
  const loadedA = yield* (yield* stores.open(refA.db)).loadRun(refA.runId, options)
  const loadedB = yield* (yield* stores.open(refB.db)).loadRun(refB.runId, options)
  // Each run at its own stored prices, unless --prices or a variable says otherwise.
  const pricesA = yield* loadPrices(args.prices, storedPrices(loadedA.run.config))
  const pricesB = yield* loadPrices(args.prices, storedPrices(loadedB.run.config))
  const comparison = compareRuns(
    {
      runId: refA.runId,
      source: Stores.displayDb(refA.db),
      predictions: loadedA.predictions,
      costOf: costPerQuestion(loadedA.calls, pricesA),
      settings: runSettings(loadedA.run),
      control: runControl(loadedA.run.config),
      calls: loadedA.calls,
      steps: loadedA.steps
    },
    {
      runId: refB.runId,
      source: Stores.displayDb(refB.db),
      predictions: loadedB.predictions,
      costOf: costPerQuestion(loadedB.calls, pricesB),
      settings: runSettings(loadedB.run),
      control: runControl(loadedB.run.config),
      calls: loadedB.calls,
      steps: loadedB.steps
    },
    { bootstrap: { resamples: args.bootstrap, seed: args.seed } }
  )
  if (comparison instanceof NoSharedQuestions) {
    return yield* new ReportError({
      reason: "NoSharedQuestions",
      message: `runs ${refA.runId} and ${refB.runId} share no question — compare runs made over the same question set`
    })
  }
  const body = args.format === "json"
    ? renderCompareJson(comparison)
    : args.format === "html"
    ? renderCompareHtml(comparison, loadedA, loadedB)
    : renderCompareText(comparison)
  yield* writeOut(
    body,
    args,
    [refA.db, refB.db],
    [loadedA.run, loadedB.run],
    `the ${args.format} comparison of ${refA.runId} and ${refB.runId}`
  )
})

/** `vtree report --repeats R1 R2 …`: the spread of accuracy over runs of one question set (ReportRepeats.ts). */
const repeatsCommand = Effect.fn("ReportCommand.repeats")(function*(args: {
  readonly db: string
  readonly runs: ReadonlyArray<string>
  readonly format: "text" | "json" | "html"
  readonly out: Option.Option<string>
}) {
  const refs = args.runs.map((ref) => parseRunRef(ref, args.db))
  const keys = new Set(refs.map((r) => `${Stores.databaseKey(r.db)}#${r.runId}`))
  if (refs.length < 2 || keys.size < refs.length || args.format === "html") {
    return yield* new ReportError({
      reason: "BadArguments",
      message: args.format === "html"
        ? "--repeats: writes text or json — pass --format text or --format json"
        : `--repeats needs two or more different runs, got ${
          args.runs.join(" ") || "none"
        } — write \`vtree report --repeats R1 R2 R3\``
    })
  }
  const stores = yield* Stores.RunStores
  const loaded = yield* Effect.forEach(
    refs,
    (ref) => Effect.flatMap(stores.open(ref.db), (store) => store.loadRun(ref.runId, { includeSteps: false }))
  )
  const result = repeatsOf(
    refs.map((ref, i) => ({ runId: ref.runId, source: Stores.displayDb(ref.db), predictions: loaded[i]!.predictions }))
  )
  if (result.shared === 0) {
    return yield* new ReportError({
      reason: "NoSharedQuestions",
      message: `runs ${refs.map((r) => r.runId).join(", ")} share no question — repeat runs over the same question set`
    })
  }
  const body = args.format === "json" ? renderRepeatsJson(result) : renderRepeatsText(result)
  yield* writeOut(body, args, refs.map((r) => r.db), loaded.map((l) => l.run), `the repeats of ${refs.length} runs`)
})

/**
 * The frames of the run's observe_frame steps, as the page at `--out` (or in the working folder) shows
 * them, and node ids linked to `--tree-page`, which must exist.
 */
const htmlFrames = Effect.fn("ReportCommand.frames")(function*(
  loaded: Parameters<typeof reportFrames>[0],
  args: {
    readonly out: Option.Option<string>
    readonly frames: "embed" | "link"
    readonly treePage: Option.Option<string>
  }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const pageDir = Option.match(args.out, {
    onNone: () => path.resolve("."),
    onSome: (out) => path.dirname(path.resolve(out))
  })
  let treePageHref: string | null = null
  if (Option.isSome(args.treePage)) {
    const page = args.treePage.value
    if (!(yield* fs.exists(page).pipe(Effect.orElseSucceed(() => false)))) {
      return yield* new ReportError({
        reason: "BadArguments",
        message:
          `--tree-page ${page}: not found — write it first with \`vtree tree html TREES --out ${page}\`, or leave the option out`
      })
    }
    treePageHref = relativeHref(path, pageDir, path.resolve(page))
  }
  return frameMarkup(yield* reportFrames(loaded, { mode: args.frames, pageDir }), treePageHref)
})

/** `vtree report`: the summary of one stored run, or the comparison of two, as text, JSON or a self-contained HTML page. */
export const report = (args: ReportArgs) =>
  Effect.gen(function*() {
    if (args.compare && args.repeats) {
      return yield* new ReportError({
        reason: "BadArguments",
        message: "--compare and --repeats: pick one — two runs side by side, or the spread over several"
      })
    }
    if (args.repeats) return yield* repeatsCommand(args)
    if (args.compare) return yield* compareCommand(args)
    if (args.runs.length > 0) {
      return yield* new ReportError({
        reason: "BadArguments",
        message: `unexpected argument ${
          args.runs[0]
        } — pick a run with --run-id, compare two with --compare RUN_A RUN_B, or several with --repeats`
      })
    }
    const store = yield* (yield* Stores.RunStores).open(args.db)
    // listRuns is newest first, so its head is the latest run.
    const chosen = Option.isSome(args.runId) ? args.runId.value : (yield* store.listRuns)[0]?.runId
    if (chosen === undefined) {
      return yield* new ReportError({
        reason: "NoRuns",
        message: `${Stores.displayDb(args.db)}: holds no runs yet — run \`vtree infer\` first`
      })
    }
    // The step rows in every format: the page's trajectories, frames sent per question (cost distribution),
    // LongVidSearch's evidence recall and tool calls.
    const loaded = {
      ...(yield* store.loadRun(chosen, { includeSteps: true })),
      judgements: yield* (yield* (yield* Stores.RunStores).judgements(args.db)).judgements(chosen)
    }
    const priced = yield* loadPrices(args.prices, storedPrices(loaded.run.config))
    const summary = summarize(loaded, { prices: priced, now: yield* Clock.currentTimeMillis })
    const body = args.format === "json"
      ? renderJson(summary)
      : args.format === "html"
      ? renderHtml(loaded, summary, { frames: yield* htmlFrames(loaded, args) })
      : renderText(summary)
    yield* writeOut(body, args, [args.db], [loaded.run], `the ${args.format} report of run ${chosen}`)
  }).pipe(
    Effect.scoped,
    // Read-only: a report never writes, not even a migration (an older database reads as it is).
    Effect.provide(Layer.merge(Stores.readOnly, Media.thumbnails))
  )
