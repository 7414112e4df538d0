import type { ToolStats } from "../../domain/Prediction.js"
import type { PromptManager } from "../prompts/PromptManager.js"
import type { TreeEnvironment } from "../tree/TreeEnvironment.js"
import type { SummaryCache } from "./SummaryCache.js"

/**
 * Anchor mode: node text is numbered (`[c1]` card lines, `[s1]` subtitle sentences) and the model cites
 * them. `ids` shows the model's text with its valid citations; `quote` also expands each citation to
 * the line it stands for. `off` sends the plain node text.
 */
export type AnchorMode = "off" | "ids" | "quote"

export type MutableToolStats = { -readonly [K in keyof ToolStats]: number }

/** What every tool of one question works with. Built once per question by runQuestion. */
export interface ToolContext {
  readonly tree: TreeEnvironment
  readonly prompts: PromptManager
  /** The question being answered: the default when a tool call leaves `question` out. */
  readonly question: string
  readonly cache: SummaryCache
  readonly stats: MutableToolStats
  readonly anchor: AnchorMode
  /** How many hits search_similar summarizes at once. */
  readonly batchConcurrency: number
  /** Second VLM round that checks the first one's observation. */
  readonly verifyVision: boolean
}

/** Seconds as a person writes them: 12, 12.5 — never 12.000000001. */
export const formatSeconds = (seconds: number): string => String(Math.round(seconds * 10) / 10)

export const errorText = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : String(error)
