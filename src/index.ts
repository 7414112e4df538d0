/**
 * vtree as a library, for other Effect apps: the programs (answer one question, run a benchmark), the
 * ports they need, the real adapters and the public fakes, and the schemas of the data they exchange.
 *
 *   import { runQuestion, loadTreeEnvironment, loadPromptManager, packagedPromptsDir, ScriptedLlm } from "vtree"
 *
 * Programs need only ports (Context tags); pick adapters with Layers at your edge. Adapters are
 * exported as namespaces (`OpenAiLlm.layer`, `SqliteRunStore.layer({ filename })`), fakes likewise
 * (`ScriptedLlm.layer(script)`). See examples/ for a complete program.
 */

// ---- Programs -----------------------------------------------------------------------------------
export {
  type AgentLoopInput,
  type AgentProtocol,
  defaultMaxSteps,
  defaultProtocol,
  maxParseFailures,
  runAgentLoop,
  stepRetrySchedule
} from "./programs/agent/AgentLoop.js"
export {
  AgentObserver,
  type AgentObserverShape,
  makeObserver,
  noopObserver,
  type StepStart,
  type ToolEvent
} from "./programs/agent/Observer.js"
export { parseAgentReply } from "./programs/agent/Parse.js"
export { type QuestionInput, runQuestion, type RunQuestionOptions } from "./programs/agent/RunQuestion.js"
export { type BuildPrompts, loadBuildPrompts } from "./programs/builder/BuildPrompts.js"
export {
  BuildError,
  BuildErrorReason,
  type BuildEvent,
  type BuildInput,
  type BuildOptions,
  buildTree,
  captionVideo,
  type LoadedSubtitles,
  type PreparedVideo,
  prepareVideo,
  type VideoSummary
} from "./programs/builder/BuildTree.js"
export { type BuildEstimate, estimateBuild } from "./programs/builder/Estimate.js"
export { checkWritable, listVideos, type ProbedVideo, probeVideos, type VideoInput } from "./programs/builder/Inputs.js"
export { type BuildParameters, defaultParameters as defaultBuildParameters } from "./programs/builder/Plan.js"
export {
  type BenchmarkEvent,
  type BenchmarkOptions,
  type BenchmarkResult,
  defaultConcurrency
} from "./programs/harness/BenchmarkOptions.js"
export { runBenchmark } from "./programs/harness/Infer.js"
export { InferError, InferErrorReason } from "./programs/harness/InferError.js"
export {
  applyEvent,
  describeProgress,
  makeProgress,
  type Progress,
  type ProgressOptions,
  type ProgressOutput,
  type ProgressState,
  renderBar,
  renderLine
} from "./programs/harness/Progress.js"
export { checkTrees, newRunId } from "./programs/harness/RunPlan.js"
export { summarize } from "./programs/report/Report.js"
export { renderHtml } from "./programs/report/ReportHtml.js"
export { renderJson, renderText } from "./programs/report/ReportText.js"
export type { Accuracy, GroupAccuracy, ReportInput, Summary, SummaryInput } from "./programs/report/Summary.js"

// ---- Trees, prompts, tools ----------------------------------------------------------------------
export { SearchSettings, type SearchSettingsShape } from "./config/SearchSettings.js"
export { type CategoryMap, parseCategories, type QuestionKind } from "./programs/prompts/Categories.js"
export {
  type Labels,
  type PromptManager,
  PromptPackError,
  PromptPackErrorReason,
  type QuestionHint,
  type Skill,
  type SkillMode,
  type SystemPromptOptions,
  type UserPromptInput
} from "./programs/prompts/PromptManager.js"
export {
  loadPromptManager,
  packagedPacks,
  packagedPromptsDir,
  resolvePromptsDir
} from "./programs/prompts/PromptPack.js"
export { formatForAgent } from "./programs/search/AgentView.js"
export { SearchHub } from "./programs/search/SearchHub.js"
export {
  type AgentTool,
  defineTool,
  type Dispatcher,
  makeCoreTools,
  makeDispatcher,
  type Submission,
  type ToolResult,
  UnknownTool,
  UnknownToolReason
} from "./programs/tools/Dispatcher.js"
export { makeSummaryCache, type SummaryCache } from "./programs/tools/SummaryCache.js"
export type { AnchorMode, ToolContext } from "./programs/tools/ToolContext.js"
export { makeWebTools, type WebToolsHub } from "./programs/tools/WebTools.js"
export type { TreeEnvironment } from "./programs/tree/TreeEnvironment.js"
export { loadTreeEnvironment, readTreeIndex, resolveTreePaths } from "./programs/tree/TreeLoader.js"
export {
  checkQuestionIds,
  checkRunId,
  decodeTrees,
  UnsafeIdError,
  UnsafeIdErrorReason
} from "./programs/tree/TreePreflight.js"

// ---- Ports --------------------------------------------------------------------------------------
export * as CallBufferLayer from "./layers/memory/MemoryCallBuffer.js"
export { CallBuffer, type CallBufferShape, captureCalls } from "./services/CallBuffer.js"
export {
  type CallContext,
  CallLog,
  type CallOutcome,
  type CallRecord,
  type CallRole,
  currentCallContext,
  emptyUsage,
  isQuestionCall,
  type QuestionRole,
  recordCall,
  type ReportedCall,
  type RoleUsage,
  type UsageByRole,
  withCallContext
} from "./services/CallLog.js"
export { EmbeddingProvider } from "./services/EmbeddingProvider.js"
// A custom adapter reports each attempt with reportAttempt, so runBenchmark's breaker sees its endpoint too.
export {
  type AttemptOutcome,
  type Breaker,
  defaultBreakerCalls,
  type EndpointOutage,
  isUnreachable,
  makeBreaker,
  reportAttempt,
  withBreaker
} from "./services/EndpointBreaker.js"
export {
  type ChatMessage,
  type ChatRequest,
  type ChatResponse,
  LLMProvider,
  type LlmRole,
  type ToolCall,
  type ToolDefinition,
  type Usage
} from "./services/LLMProvider.js"
export { OCRProvider } from "./services/OCRProvider.js"
export {
  type CallRow,
  type LoadedRun,
  type PredictionRow,
  type QuestionRecord,
  type RunRow,
  type RunStatus,
  RunStore,
  RunStoreError,
  RunStoreErrorReason,
  type RunStoreShape,
  type StepInput,
  type StepRow
} from "./services/RunStore.js"
export { type VisionRequest, VLMProvider } from "./services/VLMProvider.js"

// ---- Schemas and domain -------------------------------------------------------------------------
export { normalizeAnswer, optionLetters } from "./domain/Answer.js"
export { Prediction, StepRecord, StopReason, ToolStats } from "./domain/Prediction.js"
export * as Protocol from "./domain/Protocol.js"
export { isRetryable, ProviderError, ProviderErrorReason } from "./domain/ProviderError.js"
export {
  BenchmarkFacts,
  BenchmarkName,
  Question,
  QuestionDuration,
  QuestionLoadError,
  VideoMmeTaskTypes
} from "./domain/Question.js"
export * as Search from "./domain/Search.js"
export { FlatTree, NestedTree, TreeDecodeError, TreeDecodeErrorReason } from "./domain/Tree.js"
export {
  type AnchoredText,
  type ChildInfo,
  type EntityAppendix,
  type FrameSelection,
  FrameSelectionError,
  FrameSelectionErrorReason,
  type Level,
  NodeNotFound,
  NodeNotFoundReason,
  type SearchHit,
  type TreeIndex,
  type TreeNode
} from "./domain/TreeIndex.js"
export { decodeQuestions } from "./programs/questions/QuestionDecoder.js"
export {
  type LoadedQuestions,
  type LoadOptions,
  loadQuestions,
  loadQuestionSet
} from "./programs/questions/QuestionLoader.js"
export { type QuestionSelection, selectQuestions, splitList } from "./programs/questions/QuestionSelection.js"

// ---- Configuration and real adapters ------------------------------------------------------------
export {
  ConfigurationError,
  ConfigurationErrorReason,
  type EmbeddingConfig,
  type EndpointConfig,
  type LlmConfig,
  loadEmbeddingConfig,
  loadLlmConfig,
  loadOcrConfig,
  loadProvidersConfig,
  loadRoleConfigs,
  loadVlmConfig,
  type OcrConfig,
  type ProvidersConfig,
  type VlmConfig
} from "./config/ProviderConfig.js"
// The reliability policy the built-in adapters use, for adapters written outside vtree.
export * as MonkeyOcr from "./layers/monkeyocr/MonkeyOcr.js"
export * as OpenAiEmbedding from "./layers/openai/OpenAiEmbedding.js"
export * as OpenAiLlm from "./layers/openai/OpenAiLlm.js"
export * as OpenAiVlm from "./layers/openai/OpenAiVlm.js"
export * as Reliability from "./layers/shared/Reliability.js"
export * as PgRunStore from "./layers/sql/postgres/PgRunStore.js"
export * as SqliteRunStore from "./layers/sql/sqlite/SqliteRunStore.js"

// ---- Public fakes (DESIGN §2: fakes in layers/testing are public API) -----------------------------
export { HashingEmbedder, hashingEmbedding, makeHashingEmbedder } from "./layers/testing/HashingEmbedder.js"
export { MemoryCallLog } from "./layers/testing/MemoryCallLog.js"
export * as ScriptedLlm from "./layers/testing/ScriptedLlm.js"
export * as ScriptedOcr from "./layers/testing/ScriptedOcr.js"
export * as ScriptedVlm from "./layers/testing/ScriptedVlm.js"
