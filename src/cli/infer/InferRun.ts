// What `vtree infer` does, loaded when it runs (cli/LazyCommand.ts); its options are in InferOptions.ts.
import { Clock, Console, Duration, Effect, Layer, Option, Schedule } from "effect"
import { defaultDb, loadBreakerCalls, loadTestingKnobs } from "../../config/RunConfig.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import type { RunProviders, StoredRunConfig } from "../../domain/RunConfig.js"
import type { RunSampling } from "../../domain/Sampling.js"
import type { BenchmarkOptions, BenchmarkResult } from "../../programs/harness/BenchmarkOptions.js"
import { runBenchmark } from "../../programs/harness/Infer.js"
import { type InferRequest, loadInferInputs, storedSelection } from "../../programs/harness/InferInputs.js"
import { makeProgress } from "../../programs/harness/Progress.js"
import { summarize } from "../../programs/report/Report.js"
import { renderText } from "../../programs/report/ReportText.js"
import { storedPrices } from "../../programs/report/RunSettings.js"
import { SearchHub } from "../../programs/search/SearchHub.js"
import type { ToolContext } from "../../programs/tools/ToolContext.js"
import { makeWebTools } from "../../programs/tools/WebTools.js"
import { RunStore, type RunStoreShape } from "../../services/RunStore.js"
import { captureGenAiContent } from "../../services/Telemetry.js"
import * as Output from "../shared/OutputLayers.js"
import { loadPrices, PricesError } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"
import { TerminalConsole } from "../TerminalConsole.js"
import * as Infer from "./InferLayers.js"
import { agentSampling, type InferArgs, resuming, runSettings } from "./InferOptions.js"
import { resumeCommand } from "./ResumeHint.js"

/**
 * The run's store, opened once its inputs are checked, so a mistyped flag or a missing setting never leaves
 * an empty database behind; a resumed run's question set is in its store, which opens first (and must exist).
 */
const inputsAndStore = (args: InferArgs) =>
  Effect.gen(function*() {
    const stores = yield* Stores.RunStores
    const request: InferRequest = { ...args, resuming: resuming(args) }
    if (request.resuming) {
      const store = yield* stores.open(args.db, { mustExist: true })
      const stored = yield* storedSelection(store, request)
      const inputs = yield* loadInferInputs(request, stored)
      return { inputs, store, stored: stored.config }
    }
    const inputs = yield* loadInferInputs(request, null)
    return { inputs, store: yield* stores.open(args.db), stored: undefined }
  })

/** `--max-cost` must be a positive number of USD. */
const checkMaxCost = (args: InferArgs) =>
  Option.isSome(args.maxCost) && !(args.maxCost.value > 0)
    ? new PricesError({
      reason: "InvalidMaxCost",
      message: `--max-cost ${args.maxCost.value}: expected a positive number of USD`
    })
    : Effect.void

/** The flags as runBenchmark's options: the record's settings as given (left out: RunConfig's defaults). */
const benchmarkOptions = Effect.fn("InferCommand.benchmarkOptions")(function*(
  args: InferArgs,
  inputs: Effect.Effect.Success<ReturnType<typeof loadInferInputs>>,
  recorded: { readonly providers: RunProviders; readonly sampling: RunSampling },
  stored: StoredRunConfig | undefined,
  webHub: Option.Option<SearchHub>
) {
  const { answers, benchmark, benchmarkFacts, prompts, questions, questionsPath, selection, treesDir } = inputs
  // Left out on --resume, a setting is the run's own.
  const settings = runSettings(args, stored)
  const { leaseMs, stepRetryBaseMs } = yield* loadTestingKnobs
  // VTREE_STEP_RETRY_BASE_MS=N: the step-level retry waits N then 2N ms instead of 20 s then 40 s.
  const retrySchedule = Option.map(
    stepRetryBaseMs,
    (base): Schedule.Schedule<unknown, ProviderError> =>
      Schedule.fromDelays(Duration.millis(base), Duration.millis(2 * base))
  )
  return {
    // A resumed run keeps the prices it was started with unless this invocation gives others.
    prices: yield* loadPrices(args.prices, stored === undefined ? undefined : storedPrices(stored)),
    ...(Option.isSome(args.maxCost) ? { maxCostUsd: args.maxCost.value } : {}),
    treesDir,
    questions,
    benchmark,
    benchmarkFacts,
    ...(answers === undefined ? {} : { answers }),
    prompts,
    ...(Option.isSome(args.runId) ? { runId: args.runId.value } : {}),
    resume: args.resume,
    takeover: args.takeover,
    selection,
    ...(Option.isSome(leaseMs) ? { leaseMs: leaseMs.value } : {}),
    retryErrors: args.retryErrors,
    ...settings,
    webSearch: args.webSearch,
    // Unsaid: on for a new run, the run's own mode on --resume.
    ...(args.noFinalAnswer ? { finalAnswer: false } : {}),
    // Built per question from its prompt pack, so the untrusted-content header is in the pack's language.
    ...(Option.isSome(webHub)
      ? { extraTools: (context: ToolContext) => makeWebTools(context.prompts.labels, webHub.value) }
      : {}),
    ...(Option.isSome(retrySchedule) ? { retrySchedule: retrySchedule.value } : {}),
    breakerCalls: yield* loadBreakerCalls,
    sampling: recorded.sampling,
    config: { questionsPath, selected: questions.length, providers: recorded.providers },
    ...(Option.isSome(args.control) ? { control: args.control.value } : {}),
    ...(Option.isSome(args.controlSeed) ? { controlSeed: args.controlSeed.value } : {})
  } satisfies BenchmarkOptions<never>
})

/** The run's summary, and what a worker of a shared run or a run stopped by its budget is told. */
const printOutcome = Effect.fn("InferCommand.printOutcome")(function*(
  store: RunStoreShape,
  result: BenchmarkResult,
  args: InferArgs
) {
  // The summary needs predictions and calls; steps (with every tool output) stay on disk.
  const first = yield* store.loadRun(result.runId, { includeSteps: false })
  // LongVidSearch's evidence recall and tool calls are part of its summary: they read the steps.
  const loaded = first.run.config.benchmark === "longvidsearch" ? yield* store.loadRun(result.runId) : first
  // A resumed run keeps the prices it was started with unless this invocation gave others.
  const reportPrices = yield* loadPrices(args.prices, storedPrices(loaded.run.config))
  yield* Console.log(
    renderText(summarize(loaded, { prices: reportPrices, now: yield* Clock.currentTimeMillis })).trimEnd()
  )
  if (result.status === "running") {
    // A worker of a shared run: others still answer; the run is complete when the last one is.
    yield* Console.error(
      `vtree: this worker answered ${result.answered} question${
        result.answered === 1 ? "" : "s"
      }; run ${result.runId} goes on ` +
        `with its other workers — \`vtree report --run-id ${result.runId}\` shows its progress`
    )
  }
  if (loaded.run.status === "budget_stopped") {
    const unsaidDb = yield* Effect.orElseSucceed(defaultDb, () => "vtree.db")
    yield* Console.error(
      `vtree: --max-cost reached — run ${result.runId} stopped starting questions; continue with \`${
        resumeCommand(result.runId, args.db, unsaidDb)
      } --max-cost N\` and a higher N`
    )
  }
})

/** `vtree infer`: runs a benchmark and prints its summary. */
/** `vtree infer`: a benchmark run, each question through the agent, saved as it finishes. */
export const infer = (args: InferArgs) =>
  Effect.gen(function*() {
    const { sampling, ...providers } = yield* Infer.providersSummary(agentSampling(args))
    yield* Effect.logDebug("infer providers").pipe(Effect.annotateLogs({ providers: JSON.stringify(providers) }))
    const { inputs, store, stored } = yield* inputsAndStore(args)
    const webHub = yield* Effect.serviceOption(SearchHub)
    const { stderr } = yield* TerminalConsole
    const progress = yield* makeProgress({
      write: stderr.unsafeWrite,
      isTTY: stderr.isTTY,
      columns: stderr.columns ?? 80
    })
    let started: string | undefined
    const benchmark = yield* benchmarkOptions(args, inputs, { providers, sampling }, stored, webHub)
    yield* checkMaxCost(args)
    const result = yield* runBenchmark({
      ...benchmark,
      onEvent: (event) => {
        if (event._tag === "RunStarted") {
          started = event.runId
        }
        return progress.onEvent(event)
      }
    }).pipe(
      Effect.provideService(RunStore, store),
      // With the Search Hub the agent's history holds its web queries, which never reach a span: no message
      // content is captured then, whatever OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says.
      (run) => Option.isSome(webHub) ? Effect.locally(run, captureGenAiContent, false) : run,
      Effect.ensuring(progress.finish),
      Effect.onInterrupt(() => {
        const runId = started
        return runId === undefined
          ? Effect.void
          : Effect.flatMap(Effect.orElseSucceed(defaultDb, () => "vtree.db"), (unsaidDb) =>
            Console.error(
              `vtree: interrupted — finished questions of run ${runId} are saved in ${Stores.displayDb(args.db)}; ` +
                `continue with \`${resumeCommand(runId, args.db, unsaidDb)}\``
            ))
      })
    )
    yield* printOutcome(store, result, args)
  }).pipe(
    Effect.scoped,
    // The providers come first: a missing setting is refused before any file is read.
    Effect.provide(
      Layer.mergeAll(
        Output.quiet,
        Stores.writable,
        Option.contains(args.control, "chance")
          ? Infer.noModels
          : Infer.providers(args.webSearch, agentSampling(args))
      )
    )
  )
