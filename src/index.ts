/**
 * vtree as a library, for other Effect apps: one namespace per family. The programs need only ports
 * (Context tags); pick adapters with Layers at your edge — `X.layer(options)` from values,
 * `X.layerConfig` from the VTREE_* environment — or the fakes in `Testing`. docs/library.md "Using vtree from
 * code" shows a tree built and a question answered; the Search Hub is the `vtree/search` entry.
 *
 *   import { Agent, Prompts, Testing, Tree } from "vtree"
 */

// ---- Programs and their data ------------------------------------------------------------------
export * as Agent from "./api/Agent.js"
export * as Benchmark from "./api/Benchmark.js"
export * as Builder from "./api/Builder.js"
export * as Prompts from "./api/Prompts.js"
export * as Questions from "./api/Questions.js"
export * as Report from "./api/Report.js"
export * as Tree from "./api/Tree.js"

// ---- Ports and settings -----------------------------------------------------------------------
export * as Media from "./api/Media.js"
export * as Providers from "./api/Providers.js"
export * as Settings from "./api/Settings.js"
export * as Store from "./api/Store.js"

// ---- Adapters: each its make, layer and layerConfig (where it reads the environment) and option types -----
export * as Ffmpeg from "./api/adapters/Ffmpeg.js"
export * as MemoryCallBuffer from "./api/adapters/MemoryCallBuffer.js"
export * as MonkeyOcr from "./api/adapters/MonkeyOcr.js"
export * as OpenAiEmbedding from "./api/adapters/OpenAiEmbedding.js"
export * as OpenAiLlm from "./api/adapters/OpenAiLlm.js"
export * as OpenAiSpeech from "./api/adapters/OpenAiSpeech.js"
export * as OpenAiVlm from "./api/adapters/OpenAiVlm.js"
export * as PgRunStore from "./api/adapters/PgRunStore.js"
// The timeout, retry and call-report policy the built-in adapters use, for adapters written outside vtree.
export * as Reliability from "./api/adapters/Reliability.js"
export * as SqliteRunStore from "./api/adapters/SqliteRunStore.js"
export * as TesseractOcr from "./api/adapters/TesseractOcr.js"

// ---- Fakes ----------------------------------------------------------------------------------------
export * as Testing from "./api/Testing.js"
