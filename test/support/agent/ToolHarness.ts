// Builds the per-question tool context the way runQuestion does, so tool tests can call one tool.
import { emptyToolStats } from "../../../src/domain/Prediction.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { makeCoreTools, makeDispatcher } from "../../../src/programs/tools/Dispatcher.js"
import { makeSummaryCache } from "../../../src/programs/tools/SummaryCache.js"
import type { ToolContext } from "../../../src/programs/tools/ToolContext.js"
import { sampleTree } from "./MemoryTree.js"
import { testPrompts } from "./Prompts.js"

export const makeToolContext = (overrides: Partial<ToolContext> = {}): ToolContext => ({
  tree: sampleTree(),
  prompts: testPrompts(),
  question: "How many tomatoes does the cook add?",
  cache: makeSummaryCache(),
  stats: emptyToolStats(),
  anchor: "off",
  batchConcurrency: 8,
  verifyVision: true,
  ...overrides
})

export const toolsOf = (context: ToolContext) => makeDispatcher(makeCoreTools(context, { skillMode: "auto" }))

/** For tests of one tool: the other model must not be called (an empty script dies on any call). */
export const noVlm = ScriptedVlm.layer([])
export const noLlm = ScriptedLlm.layer([])
