import { Effect, type Schedule } from "effect"
import { emptyToolStats } from "../../domain/Prediction.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import { agentSettings } from "../../domain/RunConfig.js"
import type { LLMProvider } from "../../services/LLMProvider.js"
import type { VLMProvider } from "../../services/VLMProvider.js"
import type { PromptManager, SkillMode } from "../prompts/PromptManager.js"
import { type AgentTool, makeCoreTools, makeDispatcher } from "../tools/Dispatcher.js"
import { makeSummaryCache, type SummaryCache } from "../tools/SummaryCache.js"
import type { AnchorMode, ToolContext } from "../tools/ToolContext.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import { type AgentProtocol, runAgentLoop } from "./AgentLoop.js"

/** What the agent needs of a question; `Question` from domain/Question.ts fits as is. */
export interface QuestionInput {
  readonly questionId: string
  readonly question: string
  /** `"A. …"`, `"B. …"`, in order. Left out or empty: an open-ended question, answered in words. */
  readonly options?: ReadonlyArray<string>
  readonly taskType?: string
  /** The question's benchmark (`nextqa`, …): how the pack's categories.json reads its labels. */
  readonly benchmark?: string
  /** Every label on the benchmark's category axis when there are several (LVBench); else `taskType`. */
  readonly taskTypes?: ReadonlyArray<string>
}

export interface RunQuestionOptions<R = never> {
  readonly prompts: PromptManager
  /** Default 15. */
  readonly maxSteps?: number
  /** Default `auto`. */
  readonly skillMode?: SkillMode
  /** Second VLM round checking the first; default on. */
  readonly verifyVision?: boolean
  /** Default `off`. */
  readonly anchor?: AnchorMode
  /** Share one across the questions of a run (makeSummaryCache); default: one for this question. */
  readonly summaryCache?: SummaryCache
  /** Hits summarized at once by search_similar; default 8. */
  readonly batchConcurrency?: number
  /** Describe external_search / external_read in the system prompt (pass them in `extraTools`). */
  readonly webSearch?: boolean
  /** More tools (e.g. the Search Hub's), built per question; a name already taken replaces that tool. */
  readonly extraTools?: (context: ToolContext) => ReadonlyArray<AgentTool<R>>
  /** Overrides the step-level retry (20 s, then 40 s). */
  readonly retrySchedule?: Schedule.Schedule<unknown, ProviderError>
  /** How the agent calls tools: `json` (default, any model) or `tools` (the endpoint's native function calling). */
  readonly protocol?: AgentProtocol
  /**
   * Default true: a question still open when the step budget is spent gets one more call asking for its
   * answer, marked `forced` (see AgentLoop); false keeps the reference behaviour (unanswered).
   */
  readonly finalAnswer?: boolean
}

/**
 * Answers one question over one loaded tree. Needs only the provider Tags (LLMProvider, VLMProvider;
 * OCRProvider and AgentObserver when present), so any Effect app can run it with its own layers.
 * Never fails: provider trouble ends as a Prediction with stopReason `error`.
 */
export const runQuestion = Effect.fn("RunQuestion.runQuestion")(function*<R = never>(
  question: QuestionInput,
  tree: TreeEnvironment,
  options: RunQuestionOptions<R>
) {
  // The options' settings, each one they leave out at the run record's default.
  const settings = agentSettings(options)
  const { skillMode } = settings
  const stats = emptyToolStats()
  const context: ToolContext = {
    tree,
    prompts: options.prompts,
    question: question.question,
    cache: options.summaryCache ?? makeSummaryCache(),
    stats,
    anchor: settings.anchor,
    batchConcurrency: options.batchConcurrency ?? 8,
    verifyVision: settings.verifyVision
  }
  const kind = {
    ...(question.taskType === undefined ? {} : { taskType: question.taskType }),
    ...(question.benchmark === undefined ? {} : { benchmark: question.benchmark }),
    ...(question.taskTypes === undefined ? {} : { taskTypes: question.taskTypes })
  }
  const dispatcher = makeDispatcher<R | LLMProvider | VLMProvider>([
    ...makeCoreTools(context, { skillMode }),
    ...(options.extraTools?.(context) ?? [])
  ])
  return yield* runAgentLoop({
    questionId: question.questionId,
    options: question.options ?? [],
    systemPrompt: options.prompts.systemPrompt({
      skillMode,
      webSearch: settings.webSearch,
      maxSteps: settings.maxSteps,
      ...kind
    }),
    userPrompt: options.prompts.userPrompt({
      question: question.question,
      options: question.options ?? [],
      rootIds: tree.index.rootIds,
      ...kind
    }),
    dispatcher,
    labels: options.prompts.labels,
    maxSteps: settings.maxSteps,
    stats,
    ...(options.retrySchedule === undefined ? {} : { retrySchedule: options.retrySchedule }),
    protocol: settings.protocol,
    finalAnswer: settings.finalAnswer
  })
})
