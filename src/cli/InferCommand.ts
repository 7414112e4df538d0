import { Command, Options } from "@effect/cli"
import type * as FileSystem from "@effect/platform/FileSystem"
import { Config, type ConfigError, Console, Context, Duration, Effect, Layer, Logger, LogLevel, Option, Schedule } from "effect"
import {
  configurationHelp,
  type EndpointConfig,
  loadProvidersConfig,
  type ProvidersConfig
} from "../config/ProviderConfig.js"
import type { ProviderError } from "../domain/ProviderError.js"
import type { Question } from "../domain/Question.js"
import { selectQuestions, splitList } from "../programs/questions/QuestionSelection.js"
import { defaultConcurrency, InferError } from "../programs/harness/InferError.js"
import { defaultMaxSteps } from "../programs/prompts/SystemPrompt.js"
import type { SearchHub } from "../programs/search/SearchHub.js"
import type { ToolContext } from "../programs/tools/ToolContext.js"
import type { WebToolsHub } from "../programs/tools/WebTools.js"
import type { CallBuffer } from "../services/CallBuffer.js"
import type { CallLog } from "../services/CallLog.js"
import { RunStore, type RunStoreError } from "../services/RunStore.js"
import { withShownDefault } from "./Defaults.js"

const trees = Options.text("trees").pipe(
  Options.withDescription("Folder holding one <videoID>/tree.json per video")
)
const questions = Options.text("questions").pipe(
  Options.withDescription("A folder of <videoID>.json question files, or a Video-MME .json / .jsonl file")
)
const db = Options.text("db").pipe(
  Options.withDescription("SQLite file the run is written to (created when missing)"),
  withShownDefault("vtree.db")
)
const runId = Options.text("run-id").pipe(
  Options.withDescription("Run id (default: run-<start time>-<random>); with --resume, the run to continue"),
  Options.optional
)
const concurrency = Options.integer("concurrency").pipe(
  Options.withDescription("Questions answered at once"),
  withShownDefault(defaultConcurrency)
)
const maxSteps = Options.integer("max-steps").pipe(
  Options.withDescription("Tool steps per question before it ends as budget_exceeded"),
  withShownDefault(defaultMaxSteps)
)
const skillMode = Options.choice("skill-mode", ["auto", "manual", "none"]).pipe(
  Options.withDescription("auto: the skill for the task type; manual: a skill catalog plus read_skill; none: no skills"),
  withShownDefault("auto")
)
const prompts = Options.text("prompts").pipe(
  Options.withDescription("Prompt pack folder, or en / zh for a packaged pack (default: en)"),
  Options.optional
)
const nSamples = Options.integer("n-samples").pipe(
  Options.withDescription("Only the first N selected questions, in file order"),
  Options.optional
)
const videoIds = Options.text("video-ids").pipe(
  Options.withDescription("Comma-separated video ids to keep"),
  Options.optional
)
const questionIds = Options.text("question-ids").pipe(
  Options.withDescription("Comma-separated question ids to keep"),
  Options.optional
)
const taskTypes = Options.text("task-types").pipe(
  Options.withDescription("Comma-separated task types to keep, e.g. \"Counting Problem,OCR Problems\""),
  Options.optional
)
const resume = Options.boolean("resume").pipe(
  Options.withDescription("Continue a run, skipping the questions it saved: --run-id's, or the latest run in --db")
)
const retryErrors = Options.boolean("retry-errors").pipe(
  Options.withDescription("With --resume: also ask again the questions that ended with stop reason error (e.g. after an outage)")
)
// On by default, so the flag that appears in help is the one that changes something.
const verifyVision = Options.boolean("no-verify-vision", { ifPresent: false, negationNames: ["verify-vision"] }).pipe(
  Options.withDescription("Skip the second vision round that checks the first (it is on by default; --verify-vision is accepted)")
)
const anchor = Options.boolean("anchor").pipe(
  Options.withDescription("Anchor mode: node text numbered [c1]/[s1], the model cites anchors (see --anchor-mode)")
)
const anchorMode = Options.choice("anchor-mode", ["ids", "quote"]).pipe(
  Options.withDescription("With --anchor: ids keeps the model's text; quote also expands each anchor to its line"),
  withShownDefault("quote")
)
const webSearch = Options.boolean("web-search").pipe(
  Options.withDescription("Give the agent external_search / external_read (configure with VTREE_SEARCH_*)")
)

const options = {
  trees,
  questions,
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
  retryErrors,
  verifyVision,
  anchor,
  anchorMode,
  webSearch
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

/** A base URL as stored in config_json: no credentials, query or fragment, whatever the user put there. */
const safeUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return "(unparseable)"
  }
}

const endpointSummary = (endpoint: EndpointConfig) => ({ baseUrl: safeUrl(endpoint.baseUrl), model: endpoint.model })

/** What config_json records about the providers: endpoints and models, never keys. */
export const providersSummary = (config: ProvidersConfig) => ({
  llm: Option.match(config.llm, {
    onNone: () => null,
    onSome: (llm) => ({ agent: endpointSummary(llm.agent), tool: endpointSummary(llm.tool), thinking: llm.thinking })
  }),
  vlm: Option.match(config.vlm, { onNone: () => null, onSome: (vlm) => endpointSummary(vlm.endpoint) }),
  embedding: Option.match(config.embedding, { onNone: () => null, onSome: (e) => endpointSummary(e.endpoint) }),
  ocr: Option.match(config.ocr, { onNone: () => null, onSome: (ocr) => ({ endpoints: ocr.urls.length }) })
})

const loadConfiguredProviders = Effect.flatMap(loadProvidersConfig, (config) =>
  Option.isNone(config.llm)
    ? Effect.fail(new InferError({ reason: "BadOption", message: `no LLM configured — ${configurationHelp}` }))
    : Effect.succeed(config))

// Provider SDKs and the SQLite driver load only when `infer` runs: `vtree --help` need not pay for them.
const inferLayer = (args: { readonly db: string; readonly webSearch: boolean }) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* loadConfiguredProviders
    const [OpenAiLlm, OpenAiVlm, OpenAiEmbedding, MonkeyOcr, NodeHttpClient, SqliteRunStore, SqlCallLog] =
      yield* Effect.promise(() =>
        Promise.all([
          import("../layers/openai/OpenAiLlm.js"),
          import("../layers/openai/OpenAiVlm.js"),
          import("../layers/openai/OpenAiEmbedding.js"),
          import("../layers/monkeyocr/MonkeyOcr.js"),
          import("@effect/platform-node/NodeHttpClient"),
          import("../layers/sqlite/SqliteRunStore.js"),
          import("../services/CallBuffer.js")
        ])
      )
    // The Search Hub brings an HTML parser and Readability: loaded only for --web-search.
    const webSearch = args.webSearch
      ? yield* Effect.promise(() => Promise.all([import("./McpServe.js"), import("../programs/search/SearchHub.js")]))
      : undefined
    const llm = Option.getOrThrow(config.llm)
    // Layer's output is contravariant, so an optional service widens to Layer<never> when absent.
    // The VLM settings fall back to the LLM's, so with an LLM there is always a VLM.
    const vlm = Option.getOrThrow(config.vlm)
    const optional: ReadonlyArray<Layer.Layer<never, ProviderError | ConfigError.ConfigError | InferError, FileSystem.FileSystem>> = [
      ...Option.toArray(Option.map(config.embedding, OpenAiEmbedding.layerConfig)),
      // node:http rather than undici: the undici client cannot send MonkeyOCR's multipart uploads on Node 20.
      ...Option.toArray(Option.map(config.ocr, (ocr) => MonkeyOcr.layerConfig(ocr).pipe(Layer.provide(NodeHttpClient.layer)))),
      ...(webSearch === undefined
        ? []
        : [Layer.effect(WebSearch, Effect.flatMap(webSearch[1].SearchHub, enabledHub)).pipe(
          Layer.provide(webSearch[0].SearchHubLive)
        )])
    ]
    return Layer.mergeAll(
      OpenAiLlm.layerConfig(llm),
      OpenAiVlm.layerConfig(vlm),
      ...optional,
      Layer.succeed(RunStoreLayer, Layer.merge(SqliteRunStore.layer({ filename: args.db }), SqlCallLog.layer)),
      Layer.succeed(ProvidersSummary, providersSummary(config)),
      Logger.minimumLogLevel(LogLevel.Warning),
      // No span exporter is configured, so spans would only cost time: thousands of calls per run.
      Layer.setTracerEnabled(false)
    )
  }))

/** The agent's web tools, present only with --web-search. */
class WebSearch extends Context.Tag("vtree/cli/WebSearch")<WebSearch, WebToolsHub>() {}

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

/**
 * The run store, handed to the handler unbuilt: it is opened only once the inputs have been checked,
 * so a mistyped flag never leaves an empty database behind.
 */
class RunStoreLayer extends Context.Tag("vtree/cli/RunStoreLayer")<
  RunStoreLayer,
  Layer.Layer<RunStore | CallBuffer | CallLog, RunStoreError>
>() {}

/** config_json's view of the providers, handed from the layer (which read the environment) to the handler. */
class ProvidersSummary extends Context.Tag("vtree/cli/ProvidersSummary")<ProvidersSummary, ReturnType<typeof providersSummary>>() {}

// The harness and its inputs load when `infer` runs, not when the CLI starts.
const loadHarness = Effect.promise(() =>
  Promise.all([
    import("../programs/questions/QuestionLoader.js"),
    import("../programs/harness/Infer.js"),
    import("../programs/harness/Progress.js"),
    import("../programs/harness/Report.js"),
    import("../programs/prompts/PromptPack.js")
  ])
)

const selectOrFail = (all: ReadonlyArray<Question>, args: {
  readonly videoIds: Option.Option<string>
  readonly questionIds: Option.Option<string>
  readonly taskTypes: Option.Option<string>
  readonly nSamples: Option.Option<number>
}) =>
  Effect.gen(function*() {
    const listOption = (value: Option.Option<string>) => Option.match(value, { onNone: () => undefined, onSome: splitList })
    const selection = selectQuestions(all, {
      videoIds: listOption(args.videoIds),
      questionIds: listOption(args.questionIds),
      taskTypes: listOption(args.taskTypes),
      nSamples: Option.getOrUndefined(args.nSamples)
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

/** `vtree infer`: runs a benchmark and prints its summary. */
export const inferCommand = Command.make("infer", options, (args) =>
  Effect.gen(function*() {
    const [Questions, Infer, Progress, Report, PromptPack] = yield* loadHarness
    const all = yield* Questions.loadQuestions(args.questions)
    const selected = yield* selectOrFail(all, args)
    const manager = yield* PromptPack.loadPromptManager(PromptPack.resolvePromptsDir(Option.getOrUndefined(args.prompts)))
    // runBenchmark checks again (it is library API too); checking here first means a bad --trees never
    // opens, or creates, the database. One exists() per video: cheap to do twice.
    yield* Infer.checkTrees(args.trees, selected)
    const retrySchedule = yield* stepRetrySchedule
    const webHub = yield* Effect.serviceOption(WebSearch)
    const WebTools = Option.isSome(webHub) ? yield* Effect.promise(() => import("../programs/tools/WebTools.js")) : undefined
    // Built per question from its prompt pack, so the untrusted-content header is in the pack's language.
    const extraTools = Option.isSome(webHub) && WebTools !== undefined
      ? (context: ToolContext) => WebTools.makeWebTools(context.prompts.labels, webHub.value)
      : undefined
    const storeLayer = yield* RunStoreLayer
    yield* Effect.gen(function*() {
      const stderr = process.stderr
      const progress = yield* Progress.makeProgress({ write: (text) => stderr.write(text), isTTY: stderr.isTTY === true, columns: stderr.columns ?? 80 })
      let started: string | undefined
      const result = yield* Infer.runBenchmark({
        treesDir: args.trees,
        questions: selected,
        prompts: manager,
        ...(Option.isSome(args.runId) ? { runId: args.runId.value } : {}),
        resume: args.resume,
        retryErrors: args.retryErrors,
        concurrency: args.concurrency,
        maxSteps: args.maxSteps,
        skillMode: args.skillMode,
        verifyVision: args.verifyVision,
        anchor: args.anchor ? args.anchorMode : "off",
        webSearch: args.webSearch,
        ...(extraTools === undefined ? {} : { extraTools }),
        ...(Option.isSome(retrySchedule) ? { retrySchedule: retrySchedule.value } : {}),
        config: {
          questionsPath: args.questions,
          selected: selected.length,
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
              `vtree: interrupted — finished questions of run ${started} are saved in ${args.db}; ` +
                `continue with --resume --run-id ${started}`
            )
        )
      )
      const store = yield* RunStore
      // The summary needs predictions and calls; steps (with every tool output) stay on disk.
      const loaded = yield* store.loadRun(result.runId, { includeSteps: false })
      yield* Console.log(Report.renderText(Report.summarize(loaded)).trimEnd())
    }).pipe(Effect.provide(storeLayer))
  }).pipe(Effect.scoped)).pipe(
    Command.withDescription(
      "Run a benchmark: every question through the agent, saved to SQLite as it finishes; Ctrl-C keeps finished work"
    ),
    Command.provide((args) => inferLayer(args))
  )

