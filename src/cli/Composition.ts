import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as FileSystem from "@effect/platform/FileSystem"
import { Context, Effect, FiberRef, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import * as path from "node:path"
import { loadAsrConfig } from "../config/AsrConfig.js"
import { ConfigurationError } from "../config/ConfigurationError.js"
import {
  configurationHelp,
  type EndpointConfig,
  loadProvidersConfig,
  loadRoleConfigs,
  type OcrEngineConfig,
  type ProvidersConfig,
  type ReliabilityConfig
} from "../config/ProviderConfig.js"
import { loadTracingConfig } from "../config/TracingConfig.js"
import { ProviderError } from "../domain/ProviderError.js"
import { overSampling, type RunSampling, type Sampling } from "../domain/Sampling.js"
import * as Ffmpeg from "../layers/ffmpeg/Ffmpeg.js"
import * as MemoryCallBuffer from "../layers/memory/MemoryCallBuffer.js"
import * as MonkeyOcr from "../layers/monkeyocr/MonkeyOcr.js"
import * as OpenAiEmbedding from "../layers/openai/OpenAiEmbedding.js"
import * as OpenAiLlm from "../layers/openai/OpenAiLlm.js"
import * as OpenAiSpeech from "../layers/openai/OpenAiSpeech.js"
import * as OpenAiVlm from "../layers/openai/OpenAiVlm.js"
import * as OtlpTracing from "../layers/otel/OtlpTracing.js"
import * as SharpThumbnailer from "../layers/sharp/SharpThumbnailer.js"
import * as PgRunStore from "../layers/sql/postgres/PgRunStore.js"
import * as SqliteRunStore from "../layers/sql/sqlite/SqliteRunStore.js"
import * as TesseractOcr from "../layers/tesseract/TesseractOcr.js"
import * as LiveSearchHub from "../LiveSearchHub.js"
import { BuildError } from "../programs/builder/BuildError.js"
import { InferError } from "../programs/harness/InferError.js"
import { SearchHub } from "../programs/search/SearchHub.js"
import { LLMProvider } from "../services/LLMProvider.js"
import type { OCRProvider } from "../services/OCRProvider.js"
import { RunStore, type RunStoreError, type RunStoreShape } from "../services/RunStore.js"
import { SearchMetrics } from "../services/SearchMetrics.js"
import { SpeechToText } from "../services/SpeechToText.js"
import { VLMProvider } from "../services/VLMProvider.js"
import * as TerminalConsole from "./TerminalConsole.js"

/**
 * The composition root: every Layer a command runs with, built here from configuration (src/config).
 * Each command takes the pieces it needs with `Command.provide`, so each reads only its own settings:
 * `tree search` the embedding endpoint alone, `ocr` the OCR engine alone, `report` and `export` no
 * provider at all. Nothing below the CLI picks an adapter.
 */

// ---- Output ------------------------------------------------------------------------------------------

/** The process's stdout and stderr, which every line a command writes goes through. */
export const stdio = TerminalConsole.layer({ stdout: process.stdout, stderr: process.stderr })

/**
 * Spans exported over OTLP when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set (README "Tracing"); otherwise
 * tracing stays off and nothing of OpenTelemetry is loaded: a run makes thousands of calls.
 */
export const tracing: Layer.Layer<never, ConfigurationError> = Layer.unwrapEffect(
  Effect.map(
    loadTracingConfig,
    Option.match({
      onNone: () => Layer.setTracerEnabled(false),
      // OtlpTracing imports the SDK and the exporter when its layer is built: only with an endpoint.
      onSome: OtlpTracing.layer
    })
  )
)

/**
 * Warnings and errors only unless `--log-level` chose a level (before the subcommand or after it: @effect/cli
 * sets the minimum either way, and Info is what it is otherwise); spans only where `tracing` exports them.
 */
export const quiet = Layer.mergeAll(
  Layer.unwrapEffect(
    Effect.map(
      FiberRef.get(FiberRef.currentMinimumLogLevel),
      (level) => level === LogLevel.Info ? Logger.minimumLogLevel(LogLevel.Warning) : Layer.empty
    )
  ),
  tracing
)

// ---- Run store -------------------------------------------------------------------------------------

/**
 * The RunStore `--db` names: a `postgres://` URL or an SQLite file. `mustExist` refuses to create a
 * missing SQLite file (or to set up an empty PostgreSQL database), and `readOnly` (report, export)
 * opens it without writing anything, migrations included. A PostgreSQL run is shared: workers started
 * with one --run-id join it.
 */
export const runStore = (db: string, options: { readonly mustExist?: boolean; readonly readOnly?: boolean } = {}) =>
  PgRunStore.isPostgresUrl(db)
    ? PgRunStore.layer({ url: Redacted.make(db), ...options })
    : SqliteRunStore.layer({ filename: db, ...options })

/** Run stores a command opens by name when it needs one, each the first time it is named, for the command's scope. */
export class RunStores extends Context.Tag("vtree/cli/RunStores")<RunStores, {
  /** `mustExist`: refuse a database that is not there rather than create it. */
  readonly open: (
    db: string,
    options?: { readonly mustExist?: boolean }
  ) => Effect.Effect<RunStoreShape, RunStoreError>
}>() {}

const stores = (readOnly: boolean): Layer.Layer<RunStores> =>
  Layer.scoped(
    RunStores,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const opened = new Map<string, RunStoreShape>()
      return RunStores.of({
        open: (db, options = {}) => {
          const key = databaseKey(db)
          const known = opened.get(key)
          return known !== undefined ?
            Effect.succeed(known) :
            Layer.buildWithScope(runStore(db, { ...options, readOnly }), scope).pipe(
              Effect.map(Context.get(RunStore)),
              Effect.tap((store) => Effect.sync(() => opened.set(key, store)))
            )
        }
      })
    })
  )

/**
 * `report` (one run or two, from one database or two) and `runs`: a database is opened only when a run is
 * read from it, so `report --compare A.db#R B.db#S` never touches the default vtree.db. A name opened twice
 * (`vtree.db`, `./vtree.db`) is one store.
 */
export const readOnlyStores: Layer.Layer<RunStores> = stores(true)

/**
 * `infer`: the store is opened once the run's inputs are checked, so a mistyped flag never leaves an
 * empty database behind (a resumed run's store first, as its inputs are stored there).
 */
export const writableStores: Layer.Layer<RunStores> = stores(false)

/** One name per database: an SQLite file by its absolute path, a PostgreSQL URL as given. */
export const databaseKey = (db: string): string => (PgRunStore.isPostgresUrl(db) ? db : path.resolve(db))

/** The database as messages name it: a URL without its password. */
export const displayDb = (db: string): string => (PgRunStore.isPostgresUrl(db) ? PgRunStore.displayUrl(db) : db)

// ---- Media, search --------------------------------------------------------------------------------

/** ffmpeg and ffprobe (VTREE_FFMPEG / VTREE_FFPROBE, else PATH). */
export const media = Ffmpeg.layerConfig

/** Frame thumbnails for the pages `tree html` and `report --format html` write (sharp, loaded on first use). */
export const thumbnails = SharpThumbnailer.layer

/** The Search Hub with its live providers (VTREE_SEARCH_*), for `mcp` and `infer --web-search`. */
export const searchHub = LiveSearchHub.layerConfig

// ---- OCR -------------------------------------------------------------------------------------------

/** The OCRProvider Layer of the configured engine (`VTREE_OCR`). */
export const ocrLayer = (config: OcrEngineConfig): Layer.Layer<OCRProvider, ProviderError, FileSystem.FileSystem> =>
  config.engine === "tesseract"
    ? TesseractOcr.layer(config.tesseract)
    // The platform's fetch sends the global FormData MonkeyOCR's upload is built from (the undici package's
    // client cannot on Node 20), and brings no HTTP stack of its own into the CLI's start-up.
    : MonkeyOcr.layer(config.monkeyocr).pipe(Layer.provide(FetchHttpClient.layer))

/** What config_json and doctor say about the engine: never a URL's path or a secret. */
export const ocrSummary = (config: OcrEngineConfig) =>
  config.engine === "tesseract"
    ? { engine: "tesseract", langs: config.tesseract.langs, workers: config.tesseract.workers }
    : { engine: "monkeyocr", endpoints: config.monkeyocr.urls.length }

/** `vtree ocr`: the configured engine alone, or a one-line refusal when OCR is switched off. */
export const configuredOcr = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* loadRoleConfigs.ocr
  if (Option.isNone(config)) {
    return yield* new ConfigurationError({
      reason: "Invalid",
      variable: "VTREE_OCR",
      message: "OCR is off (VTREE_OCR=off): unset VTREE_OCR or set it to tesseract or monkeyocr"
    })
  }
  yield* Effect.logDebug("ocr engine").pipe(Effect.annotateLogs(ocrSummary(config.value)))
  return ocrLayer(config.value)
}))

// ---- Embeddings for `tree search` --------------------------------------------------------------------

/**
 * With VTREE_EMBED_* set, `tree search` uses the hybrid retrieval the agent gets; otherwise BM25. Only
 * the embedding settings are read: a broken setting of another role does not stop a tree search.
 */
export const treeEmbeddings: Layer.Layer<never, ConfigurationError> = Layer.unwrapEffect(
  Effect.map(
    loadRoleConfigs.embedding,
    Option.match({ onNone: () => Layer.empty, onSome: OpenAiEmbedding.layer })
  )
)

// ---- `infer` -----------------------------------------------------------------------------------------

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

/** What each role's requests carry, as the run stores it (config_json `sampling`): only what is sent. */
export const runSampling = (config: ProvidersConfig): RunSampling => ({
  agent: Option.match(config.llm, { onNone: () => ({}), onSome: (llm) => llm.sampling?.agent ?? {} }),
  tool: Option.match(config.llm, { onNone: () => ({}), onSome: (llm) => llm.sampling?.tool ?? {} }),
  vlm: Option.match(config.vlm, { onNone: () => ({}), onSome: (vlm) => vlm.sampling ?? {} })
})

/** What config_json records about the providers: endpoints and models, never keys; sampling per role. */
export const providersSummary = (config: ProvidersConfig) => ({
  llm: Option.match(config.llm, {
    onNone: () => null,
    onSome: (llm) => ({ agent: endpointSummary(llm.agent), tool: endpointSummary(llm.tool), thinking: llm.thinking })
  }),
  vlm: Option.match(config.vlm, { onNone: () => null, onSome: (vlm) => endpointSummary(vlm.endpoint) }),
  embedding: Option.match(config.embedding, { onNone: () => null, onSome: (e) => endpointSummary(e.endpoint) }),
  ocr: Option.match(config.ocr, { onNone: () => null, onSome: ocrSummary }),
  sampling: runSampling(config)
})

/** --web-search with every search capability off is a mistake to report, not an agent without tools. */
const requireEnabledHub = Effect.flatMap(SearchHub, (hub) =>
  hub.enabled
    ? Effect.void
    : Effect.fail(
      new InferError({
        reason: "BadOption",
        message: "--web-search: no search capability is enabled — set VTREE_SEARCH_ENABLED=true and " +
          "VTREE_SEARCH_SEARXNG_ENABLED / VTREE_SEARCH_GITHUB_ENABLED / VTREE_SEARCH_READER_ENABLED, or drop --web-search"
      })
    ))

/** The agent's sampling flags over its VTREE_LLM_* settings, field by field. */
const withAgentSampling = (config: ProvidersConfig, agent: Sampling): ProvidersConfig => ({
  ...config,
  llm: Option.map(config.llm, (llm) => ({
    ...llm,
    sampling: { agent: overSampling(llm.sampling?.agent ?? {}, agent), tool: llm.sampling?.tool ?? {} }
  }))
})

/** config_json's view of the providers `inferProviders` builds with the same sampling flags. */
export const inferProvidersSummary = (agentSampling: Sampling = {}) =>
  Effect.map(loadProvidersConfig, (config) => providersSummary(withAgentSampling(config, agentSampling)))

/**
 * The providers `infer` runs with: an LLM is required (the VLM falls back to it); embeddings and OCR
 * when configured; the Search Hub with --web-search; a call buffer for the run's call log. `agentSampling`
 * (the infer flags) wins over the agent's sampling variables.
 */
export const inferProviders = (webSearch: boolean, agentSampling: Sampling = {}) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = withAgentSampling(yield* loadProvidersConfig, agentSampling)
    if (Option.isNone(config.llm) || Option.isNone(config.vlm)) {
      return yield* new InferError({ reason: "BadOption", message: `no LLM configured — ${configurationHelp}` })
    }
    // Layer's output is contravariant, so an optional service widens to Layer<never> when absent.
    const optional: ReadonlyArray<
      Layer.Layer<never, ProviderError | ConfigurationError | InferError, FileSystem.FileSystem>
    > = [
      ...Option.toArray(Option.map(config.embedding, OpenAiEmbedding.layer)),
      ...Option.toArray(Option.map(config.ocr, ocrLayer)),
      // The agent's web tools: the Search Hub, present only with --web-search.
      ...(webSearch ? [Layer.effectDiscard(requireEnabledHub).pipe(Layer.provideMerge(searchHub))] : [])
    ]
    return Layer.mergeAll(
      OpenAiLlm.layer(config.llm.value),
      OpenAiVlm.layer(config.vlm.value),
      MemoryCallBuffer.layer,
      ...optional
    )
  }))

// ---- `build` -----------------------------------------------------------------------------------------

const badBuildOption = (error: { readonly message: string }) =>
  new BuildError({ reason: "BadOption", message: error.message })

/**
 * The models a build's checkpoints are keyed by: the vision model and the text (tool) model, `-` for one
 * not configured (only a dry run gets that far without both).
 */
export const buildModels: Effect.Effect<{ readonly vlm: string; readonly llm: string }, BuildError> = Effect.all({
  llm: loadRoleConfigs.llm,
  vlm: loadRoleConfigs.vlm
}).pipe(
  Effect.mapError(badBuildOption),
  Effect.map((config) => ({
    vlm: Option.getOrElse(Option.map(config.vlm, (vlm) => vlm.endpoint.model), () => "-"),
    llm: Option.getOrElse(Option.map(config.llm, (llm) => llm.tool.model), () => "-")
  }))
)

/**
 * The models `build` calls, their per-provider cap set to --concurrency: the LLM and VLM (required),
 * embeddings when configured, speech to text (VTREE_ASR_*) for videos without subtitles. Only the roles
 * a build uses are read: a broken OCR setting must not stop it.
 */
export const buildProviders = (concurrency: number) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* Effect.all({
      llm: loadRoleConfigs.llm,
      vlm: loadRoleConfigs.vlm,
      embedding: loadRoleConfigs.embedding
    }).pipe(
      Effect.mapError(badBuildOption)
    )
    if (Option.isNone(config.llm) || Option.isNone(config.vlm)) {
      return yield* new BuildError({
        reason: "BadOption",
        message:
          `no model configured — ${configurationHelp} (VTREE_VLM_MODEL names the vision model that writes the cards)`
      })
    }
    const capped = (reliability: ReliabilityConfig) => ({ ...reliability, concurrency })
    const llm = { ...config.llm.value, reliability: capped(config.llm.value.reliability) }
    const vlm = { ...config.vlm.value, reliability: capped(config.vlm.value.reliability) }
    const embedding = Option.map(config.embedding, (e) =>
      OpenAiEmbedding.layer({ ...e, reliability: capped(e.reliability) }))
    const asr = yield* Effect.mapError(loadAsrConfig, badBuildOption)
    return Layer.mergeAll(
      OpenAiLlm.layer(llm),
      OpenAiVlm.layer(vlm),
      ...Option.toArray(embedding),
      ...Option.toArray(Option.map(asr, OpenAiSpeech.layer))
    )
  }))

const noCall = Effect.dieMessage("a dry run makes no model call")

/**
 * `build --dry-run` plans and calls nothing, so it needs no model configured: model ports that are
 * never called (reaching one is a bug). The model names, when set, key the checkpoints it counts as
 * reused (`buildModels`); speech to text, when set, is named as a video's subtitle source without being asked.
 */
export const dryRunProviders = Layer.unwrapEffect(Effect.gen(function*() {
  const asr = yield* Effect.mapError(loadAsrConfig, badBuildOption)
  return Layer.mergeAll(
    Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => noCall })),
    Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => noCall })),
    ...Option.toArray(Option.map(asr, (asr) =>
      Layer.succeed(
        SpeechToText,
        SpeechToText.of({ model: asr.model, maxUploadBytes: asr.maxUploadBytes, transcribe: () => noCall })
      )))
  )
}))

// ---- `tree import` -----------------------------------------------------------------------------------

/**
 * The tool model `tree import` may ask for event and scene cards (none → deterministic cards), computed in the
 * command from the same settings `importProviders` reads.
 */
export const importModel = (useModel: boolean): Effect.Effect<Option.Option<string>, ConfigurationError> =>
  useModel ? Effect.map(loadRoleConfigs.llm, Option.map((config) => config.tool.model)) : Effect.succeedNone

/**
 * `tree import`: ffmpeg (frames and frame rates with --videos) and, when `useModel` and an LLM is
 * configured, its tool role for the cards. Only the LLM settings are read; nothing is required, so an
 * import runs offline.
 */
export const importProviders = (useModel: boolean) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const llm = useModel ? yield* loadRoleConfigs.llm : Option.none()
    return Layer.mergeAll(media, quiet, ...Option.toArray(Option.map(llm, OpenAiLlm.layer)))
  }))

// ---- `mcp` -------------------------------------------------------------------------------------------

/** Whether `mcp --trees` has a model: video_view_node then summarizes for a question, and video_ask runs. */
export const mcpHasLlm: Effect.Effect<boolean, ConfigurationError> = Effect.map(loadRoleConfigs.llm, Option.isSome)

const unconfigured = (what: string) =>
  Effect.fail(
    new ProviderError({
      provider: what,
      reason: "BadRequest",
      message: `no ${what} configured — ${configurationHelp}`
    })
  )

/**
 * The models `mcp --trees` may call: the configured LLM and VLM when there are, else ports that refuse
 * every call naming what to set (the tree tools still serve cards, frames and subtitles), and
 * embeddings when configured (video_search is then hybrid). Only these roles are read.
 */
const mcpModels = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* Effect.all({ llm: loadRoleConfigs.llm, vlm: loadRoleConfigs.vlm })
  const llm = Option.match(config.llm, {
    onNone: () => Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => unconfigured("LLM") })),
    onSome: OpenAiLlm.layer
  })
  const vlm = Option.match(config.vlm, {
    onNone: () => Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => unconfigured("vision model") })),
    onSome: OpenAiVlm.layer
  })
  return Layer.mergeAll(
    llm,
    vlm,
    treeEmbeddings,
    // video_frames scales frames over 768 px down with it.
    thumbnails
  )
}))

/** The Search Hub alone calls no model: the ports are never reached, and no model setting is read. */
const noMcpModels = Layer.mergeAll(
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => unconfigured("LLM") })),
  Layer.succeed(VLMProvider, VLMProvider.of({ chatWithImages: () => unconfigured("vision model") })),
  thumbnails
)

/**
 * What `vtree mcp` runs with: the models only when it serves trees (a broken VTREE_LLM_* must not stop
 * a search-only server), the Search Hub, and its metrics as one JSON line per request on stderr.
 */
export const mcpProviders = (serveTrees: boolean) =>
  Layer.mergeAll(serveTrees ? mcpModels : noMcpModels, searchHub, SearchMetrics.jsonLines)
