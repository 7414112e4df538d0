import { Command, Options } from "@effect/cli"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Clock, Config, type ConfigError, Console, Context, Duration, Effect, Layer, Logger, LogLevel, Option, Schedule } from "effect"
import {
  configurationHelp,
  type EndpointConfig,
  loadProvidersConfig,
  type ProvidersConfig
} from "../config/ProviderConfig.js"
import type { ProviderError } from "../domain/ProviderError.js"
import type { BenchmarkFacts, BenchmarkName, Question } from "../domain/Question.js"
import * as OpenAiEmbedding from "../layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../layers/openai/OpenAiLlm.js"
import * as OpenAiVlm from "../layers/openai/OpenAiVlm.js"
import * as MemoryCallBuffer from "../layers/memory/MemoryCallBuffer.js"
import { checkTrees, defaultConcurrency, InferError, runBenchmark } from "../programs/harness/Infer.js"
import { checkQuestionIds } from "../programs/tree/TreePreflight.js"
import { makeProgress } from "../programs/harness/Progress.js"
import { renderText, summarize } from "../programs/harness/Report.js"
import type { PromptManager } from "../programs/prompts/PromptManager.js"
import { loadPromptManager, resolvePromptsDir } from "../programs/prompts/PromptPack.js"
import { loadQuestionSet } from "../programs/questions/QuestionLoader.js"
import { selectQuestions, splitList } from "../programs/questions/QuestionSelection.js"
import { SearchHub } from "../programs/search/SearchHub.js"
import type { ToolContext } from "../programs/tools/ToolContext.js"
import { makeWebTools, type WebToolsHub } from "../programs/tools/WebTools.js"
import { RunStore, type RunSelection } from "../services/RunStore.js"
import { questionsSha256, type SelectionInput } from "../programs/harness/RunSelection.js"
import { optionalText, promptOptions, wholeNumber, withShownDefault } from "./CliOptions.js"
import { loadPrices, PricesError } from "./Prices.js"
import { SearchHubLive } from "./McpServe.js"
import { ocrLayer, ocrSummary } from "./OcrLayer.js"
import { dbOption, displayDb, runStoreLayer } from "./RunStoreLayer.js"

const trees = Options.text("trees").pipe(
  Options.withDescription("Folder holding one <videoID>/tree.json per video")
)
const questions = optionalText(
  "questions",
  "A benchmark's question file or folder, its layout read from its content: Video-MME, LVBench, LongVideoBench, MLVU, " +
    "EgoSchema, NExT-QA (required unless --resume: a resumed run asks its own)"
)
const benchmark = optionalText(
  "benchmark",
  "Read --questions as this benchmark's layout instead of detecting it: videomme, lvbench, longvideobench, mlvu, egoschema or nextqa"
)
const answers = optionalText(
  "answers",
  "Keys shipped apart from the questions, a JSON {question id: letter or index} such as EgoSchema's subset_answers.json"
)
const db = dbOption("Where the run is written (an SQLite file is created when missing)")
const runId = optionalText(
  "run-id",
  "Run id (default: run-<start time>-<random>); with --resume, the run to continue. On a PostgreSQL --db, every " +
    "infer started with the same id (on any machine) is a worker of that one run"
)
const concurrency = wholeNumber("concurrency", 1).pipe(
  Options.withDescription("Questions answered at once"),
  withShownDefault(defaultConcurrency)
)
const { maxSteps, prompts, skillMode, webSearch } = promptOptions({
  prompts: "Prompt pack folder, or en / zh for a packaged pack (default: en)",
  skillMode: "auto: the skill for the task type; manual: a skill catalog plus read_skill; none: no skills",
  maxSteps: "Tool steps per question before it ends as budget_exceeded",
  webSearch: "Give the agent external_search / external_read (configure with VTREE_SEARCH_*)"
})
const nSamples = wholeNumber("n-samples", 1).pipe(
  Options.withDescription("Only the first N selected questions, in file order"),
  Options.optional
)
const videoIds = optionalText("video-ids", "Comma-separated video ids to keep")
const questionIds = optionalText("question-ids", "Comma-separated question ids to keep")
const taskTypes = optionalText("task-types", "Comma-separated task types to keep, e.g. \"Counting Problem,OCR Problems\"")
const resume = Options.boolean("resume").pipe(
  Options.withDescription("Continue a run, skipping the questions it saved: --run-id's, or the latest run in --db")
)
const takeover = Options.boolean("takeover").pipe(
  Options.withDescription(
    "Take over a run whose owner died (its lease expired, `vtree report` shows it stale); implies --resume, refused while the lease is live. " +
      "On PostgreSQL not needed: workers share a run, and a dead worker's questions go to the others when its lease expires"
  )
)
const retryErrors = Options.boolean("retry-errors").pipe(
  Options.withDescription("With --resume: also ask again the questions that ended with stop reason error (e.g. after an outage)")
)
// On by default, so the flag that appears in help is the one that changes something.
const verifyVision = Options.boolean("no-verify-vision", { ifPresent: false, negationNames: ["verify-vision"] }).pipe(
  Options.withDescription(
    "--no-verify-vision: skip the second vision round that checks the first; --verify-vision: run that second, checking vision round (the default)"
  )
)
const anchor = Options.boolean("anchor").pipe(
  Options.withDescription("Anchor mode: node text numbered [c1]/[s1], the model cites anchors (see --anchor-mode)")
)
const anchorMode = Options.choice("anchor-mode", ["ids", "quote"]).pipe(
  Options.withDescription("With --anchor: ids keeps the model's text; quote also expands each anchor to its line"),
  withShownDefault("quote")
)

const protocol = Options.choice("protocol", ["json", "tools"]).pipe(
  Options.withDescription("How the agent calls tools: json (one JSON object per reply, any model) or tools (the endpoint's native function calling)"),
  withShownDefault("json")
)
const maxCost = Options.float("max-cost").pipe(
  Options.withDescription(
    "Stop starting questions once spent + the in-flight estimate would pass this many USD; the run ends budget_stopped " +
      "and --resume with a higher cap continues it. Needs prices (--prices or VTREE_<ROLE>_PRICE)"
  ),
  Options.optional
)
const prices = optionalText("prices", "Prices file for cost and --max-cost (format: see `vtree report --help`)")

const options = {
  trees,
  questions,
  benchmark,
  answers,
  db,
  runId,
  concurrency,
  maxSteps,
  skillMode,
  prompts,
  nSamples,
  videoIds,
  questionIds,
  taskTypes,
  resume,
  takeover,
  retryErrors,
  verifyVision,
  anchor,
  anchorMode,
  webSearch,
  protocol,
  maxCost,
  prices
}

/**
 * A testing knob, documented in the README: the agent's step-level retry waits 20 s then 40 s; with
 * VTREE_STEP_RETRY_BASE_MS=N it waits N then 2N milliseconds, so tests of failing endpoints stay quick.
 */
const stepRetrySchedule = Effect.map(
  Config.option(Config.integer("VTREE_STEP_RETRY_BASE_MS")),
  Option.map((base): Schedule.Schedule<unknown, ProviderError> =>
    Schedule.fromDelays(Duration.millis(base), Duration.millis(2 * base)))
)

/**
 * A testing knob, documented in the README: a run's lease lasts 60 s without a heartbeat; with
 * VTREE_LEASE_MS=N it lasts N milliseconds, so tests of a killed owner need not wait a minute.
 */
const leaseMsSetting = Config.option(Config.integer("VTREE_LEASE_MS"))

/** A base URL as stored in config_json: no credentials, query or fragment, whatever the user put there. */
const safeUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return "(unparseable)"
  }
}

const endpointSummary = (endpoint: EndpointConfig) => ({
  baseUrl: safeUrl(endpoint.baseUrl),
  ...(endpoint.baseUrls === undefined ? {} : { baseUrls: endpoint.baseUrls.map(safeUrl) }),
  model: endpoint.model
})

/** What config_json records about the providers: endpoints and models, never keys. */
export const providersSummary = (config: ProvidersConfig) => ({
  llm: Option.match(config.llm, {
    onNone: () => null,
    onSome: (llm) => ({ agent: endpointSummary(llm.agent), tool: endpointSummary(llm.tool), thinking: llm.thinking })
  }),
  vlm: Option.match(config.vlm, { onNone: () => null, onSome: (vlm) => endpointSummary(vlm.endpoint) }),
  embedding: Option.match(config.embedding, { onNone: () => null, onSome: (e) => endpointSummary(e.endpoint) }),
  ocr: Option.match(config.ocr, { onNone: () => null, onSome: ocrSummary })
})

/** config_json's view of the providers, handed from the layer (which read the environment) to the handler. */
class ProvidersSummary extends Context.Tag("vtree/cli/ProvidersSummary")<ProvidersSummary, ReturnType<typeof providersSummary>>() {}

/** The agent's web tools, present only with --web-search. */
class WebSearch extends Context.Tag("vtree/cli/WebSearch")<WebSearch, WebToolsHub>() {}

/** What `infer` reads and checks before the run store opens: the selected questions and the prompt pack. */
class InferInputs extends Context.Tag("vtree/cli/InferInputs")<InferInputs, {
  readonly questions: ReadonlyArray<Question>
  /** The questions' benchmark, and each question's facts beside it (loadQuestionSet's). */
  readonly benchmark: BenchmarkName
  readonly benchmarkFacts: ReadonlyMap<string, BenchmarkFacts>
  readonly prompts: PromptManager
  /** Stored with the run; a resumed run must ask the same. */
  readonly selection: SelectionInput
  /** --questions as given (or as the resumed run stored it). */
  readonly questionsPath: string
}>() {}

const enabledHub = (hub: SearchHub) =>
  hub.enabled
    ? Effect.succeed<WebToolsHub>(hub)
    : Effect.fail(
      new InferError({
        reason: "BadOption",
        message: "--web-search: no search capability is enabled — set VTREE_SEARCH_ENABLED=true and " +
          "VTREE_SEARCH_SEARXNG_ENABLED / VTREE_SEARCH_GITHUB_ENABLED / VTREE_SEARCH_READER_ENABLED, or drop --web-search"
      })
    )

/** The model providers the environment configures; an LLM is required (the VLM falls back to it). */
const providersLayer = (webSearch: boolean) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* loadProvidersConfig
    if (Option.isNone(config.llm) || Option.isNone(config.vlm)) {
      return yield* new InferError({ reason: "BadOption", message: `no LLM configured — ${configurationHelp}` })
    }
    // Layer's output is contravariant, so an optional service widens to Layer<never> when absent.
    const optional: ReadonlyArray<Layer.Layer<never, ProviderError | ConfigError.ConfigError | InferError, FileSystem.FileSystem>> = [
      ...Option.toArray(Option.map(config.embedding, OpenAiEmbedding.layerConfig)),
      ...Option.toArray(Option.map(config.ocr, ocrLayer)),
      ...(webSearch ? [Layer.effect(WebSearch, Effect.flatMap(SearchHub, enabledHub)).pipe(Layer.provide(SearchHubLive))] : [])
    ]
    return Layer.mergeAll(
      OpenAiLlm.layerConfig(config.llm.value),
      OpenAiVlm.layerConfig(config.vlm.value),
      ...optional,
      Layer.succeed(ProvidersSummary, providersSummary(config))
    )
  }))

/** The question file and filters a run asks; on --resume, each defaults to the run's stored one. */
interface SelectionArgs {
  readonly questions: string
  readonly videoIds: ReadonlyArray<string> | null
  readonly questionIds: ReadonlyArray<string> | null
  readonly taskTypes: ReadonlyArray<string> | null
  readonly nSamples: number | null
}

const selectOrFail = (all: ReadonlyArray<Question>, args: SelectionArgs) =>
  Effect.gen(function*() {
    const selection = selectQuestions(all, {
      videoIds: args.videoIds ?? undefined,
      questionIds: args.questionIds ?? undefined,
      taskTypes: args.taskTypes ?? undefined,
      nSamples: args.nSamples ?? undefined
    })
    const { unmatched } = selection
    const notes = [
      unmatched.videoIds.length > 0 ? `--video-ids ${unmatched.videoIds.join(",")}` : undefined,
      unmatched.questionIds.length > 0 ? `--question-ids ${unmatched.questionIds.join(",")}` : undefined,
      unmatched.taskTypes.length > 0 ? `--task-types ${unmatched.taskTypes.join(",")}` : undefined
    ].filter((note) => note !== undefined)
    if (selection.questions.length === 0) {
      return yield* new InferError({
        reason: "NoQuestions",
        message: `no question matches the filters${notes.length > 0 ? ` (nothing for ${notes.join("; ")})` : ""} — ` +
          `check the ids and task types against the question file`
      })
    }
    if (notes.length > 0) yield* Console.error(`vtree: warning: these match no question: ${notes.join("; ")}`)
    return selection.questions
  })

type InferArgs = Command.Command.ParseConfig<typeof options>

const resuming = (args: InferArgs): boolean => args.resume || args.takeover

/**
 * The selection flags as given, each falling back to the resumed run's stored one: `--resume` alone
 * asks the run's own question set; a flag that differs from it is refused by runBenchmark.
 */
const selectionArgs = (args: InferArgs, stored: RunSelection | null) =>
  Effect.gen(function*() {
    const listOption = (value: Option.Option<string>, fallback: ReadonlyArray<string> | null | undefined) =>
      Option.match(value, { onNone: () => fallback ?? null, onSome: splitList })
    const questionsPath = Option.getOrUndefined(args.questions) ?? stored?.questionsPath
    if (questionsPath === undefined) {
      return yield* new InferError({
        reason: "BadOption",
        message: resuming(args)
          ? "--resume: this run was started before vtree stored its question set — pass --questions (and the same filters) again"
          : "--questions is required: a folder of <videoID>.json files or a Video-MME .json / .jsonl file"
      })
    }
    const selection: SelectionArgs = {
      questions: questionsPath,
      videoIds: listOption(args.videoIds, stored?.videoIds),
      questionIds: listOption(args.questionIds, stored?.questionIds),
      taskTypes: listOption(args.taskTypes, stored?.taskTypes),
      nSamples: Option.getOrUndefined(args.nSamples) ?? stored?.nSamples ?? null
    }
    return selection
  })

/** The run --resume continues (--run-id's, or the latest) and the question set stored with it. */
const storedSelection = (args: InferArgs) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const run = Option.isSome(args.runId) ? yield* store.getRun(args.runId.value) : Option.fromNullable((yield* store.listRuns)[0])
    if (Option.isNone(run)) {
      return yield* new InferError({
        reason: "NothingToResume",
        message: Option.isSome(args.runId)
          ? `--resume: no run "${args.runId.value}" in ${args.db} — check --run-id (\`vtree report\` shows the latest run)`
          : `--resume: ${args.db} holds no run to resume — start one without --resume`
      })
    }
    return run.value.selection ?? null
  })

const inputsLayer = <E, R>(args: InferArgs, stored: Effect.Effect<RunSelection | null, E, R>) =>
  Layer.effect(
    InferInputs,
    Effect.gen(function*() {
      const given = yield* selectionArgs(args, yield* stored)
      const loaded = yield* loadQuestionSet(given.questions, {
        benchmark: Option.getOrUndefined(args.benchmark),
        answers: Option.getOrUndefined(args.answers)
      })
      const questions = yield* selectOrFail(loaded.questions, given)
      const path = yield* Path.Path
      const questionsPath = path.resolve(given.questions)
      const sha256 = yield* questionsSha256(questionsPath).pipe(
        Effect.mapError((error) =>
          new InferError({ reason: "BadOption", message: `--questions ${given.questions}: cannot read it (${error.message}) — check the path` })
        )
      )
      const prompts = yield* loadPromptManager(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
      // runBenchmark checks again (it is library API too); checking here first means a bad --trees never
      // opens, or creates, the database. One exists() per video: cheap to do twice.
      yield* checkQuestionIds(questions)
      yield* checkTrees(args.trees, questions)
      const selection: SelectionInput = {
        questionsPath,
        questionsSha256: sha256,
        videoIds: given.videoIds,
        questionIds: given.questionIds,
        taskTypes: given.taskTypes,
        nSamples: given.nSamples
      }
      return { questions, benchmark: loaded.benchmark, benchmarkFacts: loaded.facts, prompts, selection, questionsPath: given.questions }
    })
  )

/**
 * Everything `infer` runs with. The store is built last, after the providers and the inputs, so a
 * mistyped flag or a missing setting never leaves an empty database behind.
 */
const inferLayer = (args: InferArgs) => {
  const rest = Layer.mergeAll(
    MemoryCallBuffer.layer,
    Logger.minimumLogLevel(LogLevel.Warning),
    // No span exporter is configured, so spans would only cost time: thousands of calls per run.
    Layer.setTracerEnabled(false)
  )
  // A resumed run's question set is in the store, so the store opens first (it must exist then).
  const inputsAndStore = resuming(args)
    ? inputsLayer(args, storedSelection(args)).pipe(
      Layer.provideMerge(runStoreLayer(args.db, { mustExist: true }))
    )
    : runStoreLayer(args.db).pipe(Layer.provideMerge(inputsLayer(args, Effect.succeed(null))))
  return Layer.mergeAll(rest, inputsAndStore).pipe(Layer.provideMerge(providersLayer(args.webSearch)))
}

/** `vtree infer`: runs a benchmark and prints its summary. */
export const inferCommand = Command.make("infer", options, (args) =>
  Effect.gen(function*() {
    const { benchmark, benchmarkFacts, prompts, questions, questionsPath, selection } = yield* InferInputs
    const retrySchedule = yield* stepRetrySchedule
    const leaseMs = yield* leaseMsSetting
    const webHub = yield* Effect.serviceOption(WebSearch)
    const stderr = process.stderr
    const progress = yield* makeProgress({ write: (text) => stderr.write(text), isTTY: stderr.isTTY === true, columns: stderr.columns ?? 80 })
    let started: string | undefined
    const priced = yield* loadPrices(args.prices)
    if (Option.isSome(args.maxCost) && !(args.maxCost.value > 0)) {
      return yield* new PricesError({ message: `--max-cost ${args.maxCost.value}: expected a positive number of USD` })
    }
    const result = yield* runBenchmark({
      prices: priced,
      ...(Option.isSome(args.maxCost) ? { maxCostUsd: args.maxCost.value } : {}),
      treesDir: args.trees,
      questions,
      benchmark,
      benchmarkFacts,
      ...(Option.isSome(args.answers) ? { answers: (yield* Path.Path).resolve(args.answers.value) } : {}),
      prompts,
      ...(Option.isSome(args.runId) ? { runId: args.runId.value } : {}),
      resume: args.resume,
      takeover: args.takeover,
      selection,
      ...(Option.isSome(leaseMs) ? { leaseMs: leaseMs.value } : {}),
      retryErrors: args.retryErrors,
      concurrency: args.concurrency,
      maxSteps: args.maxSteps,
      skillMode: args.skillMode,
      verifyVision: args.verifyVision,
      anchor: args.anchor ? args.anchorMode : "off",
      webSearch: args.webSearch,
      protocol: args.protocol,
      // Built per question from its prompt pack, so the untrusted-content header is in the pack's language.
      ...(Option.isSome(webHub)
        ? { extraTools: (context: ToolContext) => makeWebTools(context.prompts.labels, webHub.value) }
        : {}),
      ...(Option.isSome(retrySchedule) ? { retrySchedule: retrySchedule.value } : {}),
      config: {
        questionsPath,
        selected: questions.length,
        providers: yield* ProvidersSummary
      },
      onEvent: (event) => {
        if (event._tag === "RunStarted") started = event.runId
        return progress.onEvent(event)
      }
    }).pipe(
      Effect.ensuring(progress.finish),
      Effect.onInterrupt(() =>
        started === undefined
          ? Effect.void
          : Console.error(
            `vtree: interrupted — finished questions of run ${started} are saved in ${displayDb(args.db)}; ` +
              `continue with --resume --run-id ${started}`
          )
      )
    )
    const store = yield* RunStore
    // The summary needs predictions and calls; steps (with every tool output) stay on disk.
    const loaded = yield* store.loadRun(result.runId, { includeSteps: false })
    yield* Console.log(renderText(summarize(loaded, { prices: priced, now: yield* Clock.currentTimeMillis })).trimEnd())
    if (result.status === "running") {
      // A worker of a shared run: others still answer; the run is complete when the last one is.
      yield* Console.error(
        `vtree: this worker answered ${result.answered} question${result.answered === 1 ? "" : "s"}; run ${result.runId} goes on ` +
          `with its other workers — \`vtree report --run-id ${result.runId}\` shows its progress`
      )
    }
    if (loaded.run.status === "budget_stopped") {
      yield* Console.error(
        `vtree: --max-cost reached — run ${result.runId} stopped starting questions; continue with --resume --run-id ${result.runId} and a higher --max-cost`
      )
    }
  }).pipe(
    Effect.scoped,
    // The union of every subcommand's errors is too wide for tsc to name in Root's declaration; the
    // errors reach ErrorReport unchanged, which reads them by tag.
    Effect.mapError((error): unknown => error)
  )).pipe(
    Command.withDescription(
      "Run a benchmark: every question through the agent, saved as it finishes (SQLite, or PostgreSQL shared by many workers); Ctrl-C keeps finished work"
    ),
    Command.provide(inferLayer)
  )
