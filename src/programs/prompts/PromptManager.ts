// The prompt pack as the agent sees it: tool prompt names, label keys, skills, and the PromptManager
// value that PromptPack.ts loads from a pack directory.
import { Schema } from "effect"
import type { CategoryMap, QuestionKind } from "./Categories.js"
import type { Skill } from "./Skills.js"

export type SkillMode = "auto" | "manual" | "none"

export const toolPromptNames = [
  "view_node_extract",
  "view_node_verify",
  "view_node_children_extract",
  "view_node_children_verify",
  "search_similar_extract",
  "search_similar_verify",
  "observe_frame_extract",
  "observe_frame_verify"
] as const
export type ToolPromptName = (typeof toolPromptNames)[number]

/** Every fixed marker tools and the loop print; `labels.json` of a pack holds exactly these keys. */
export const labelKeys = [
  "node", // [Node] / [节点]
  "levelScene", // Scene / 场景
  "levelEvent", // Event / 事件
  "levelFrame", // Frame / 帧
  "summary", // [Summary] / [内容摘要]
  "verified", // [Verified] / [核实]
  "entities", // [Entities] / [实体]
  "onScreenText", // [On-screen text] / [画面文字]
  "children", // [Children] / [子节点概览]
  "starStrong", // ★★
  "starWeak", // ★
  "searchResults", // [Search results] / [搜索结果]
  "subtitleContext", // [Subtitle context] / [字幕上下文]
  "visualObservation", // [Visual observation] / [视觉观察]
  "check", // [Check] / [验证]
  "summaryError", // [Summary error] / [摘要错误]
  "visionError", // [Vision error] / [VL错误]
  "skipped", // skipped (call failed) / 跳过（调用失败）
  "ok", // [ok]
  "answerSubmitted", // answer submitted / 答案已提交
  "toolError", // [Tool error] — bad args, unknown node, etc.
  "parseErrorMessage", // corrective message after an unparseable reply; {{reason}} says what was wrong
  "unknownToolMessage", // corrective message after an unknown tool; {{tool}} {{tools}}
  "untrustedExternal", // wrapper header for web-search output the agent must treat as data
  "toolSystem", // system message for summarizer/vision calls
  "anchorNote", // appended to summarizer prompts in anchor mode: how to cite [c1]/[s1] lines
  "toolsProtocolNote", // appended to the system prompt with --protocol tools: call functions, notes as text
  "noToolCallMessage", // corrective message after a tools-protocol reply with no usable call; {{reason}}
  "finalAnswerMessage", // after the last step (json protocol): no steps left, answer now with submit_answer
  "finalAnswerCallMessage", // the same with --protocol tools, where submit_answer is the only function offered
  "openQuestion" // shown as an open-ended question's options: answer in words; optional (English by default)
] as const
export type LabelKey = (typeof labelKeys)[number]
export type Labels = Readonly<Record<LabelKey, string>>

/** What the agent is told about a question's kind (PromptManager.hint). */
export interface QuestionHint {
  /** The task type line's value, each label by its readable name with the code beside it; "" when none. */
  readonly taskType: string
  /** The skill auto mode adds (by name): the category's, else the benchmark's, else `_default`'s; null: none. */
  readonly skill: string | null
  /** The benchmark's note for every question (EgoSchema: who "C" is); "" when none. */
  readonly note: string
}

/** `benchmark` and `taskType` / `taskTypes` pick the skill in auto mode (see QuestionKind). */
export interface SystemPromptOptions extends QuestionKind {
  readonly skillMode: SkillMode
  /** Adds external_search / external_read to the tool descriptions. */
  readonly webSearch?: boolean
  /** Fills `{{max_steps}}` in system.md (the agent's step budget); 15 when not given. */
  readonly maxSteps?: number
}

/** `benchmark` and `taskType` / `taskTypes` fill the task type line and the benchmark's note. */
export interface UserPromptInput extends QuestionKind {
  readonly question: string
  readonly options: ReadonlyArray<string>
  readonly rootIds: ReadonlyArray<string>
}

/** Why a prompt pack was refused: a folder or file is missing or unreadable, or a file breaks the pack's rules. */
export const PromptPackErrorReason = Schema.Literal("NotFound", "Unreadable", "Invalid")
export type PromptPackErrorReason = typeof PromptPackErrorReason.Type

export class PromptPackError extends Schema.TaggedError<PromptPackError>()("PromptPackError", {
  reason: PromptPackErrorReason,
  path: Schema.String,
  message: Schema.String
}) {}

export interface PromptManager {
  readonly dir: string
  readonly labels: Labels
  readonly skills: ReadonlyArray<Skill>
  /** The pack's categories.json; empty when the pack has none. */
  readonly categories: CategoryMap
  /** How a question's kind reaches the agent: the task type as shown, the auto-mode skill, the note. */
  readonly hint: (kind: QuestionKind) => QuestionHint
  readonly systemPrompt: (options: SystemPromptOptions) => string
  readonly userPrompt: (input: UserPromptInput) => string
  /** Fills `{{name}}` placeholders; an unknown placeholder is left as written. */
  readonly toolPrompt: (name: ToolPromptName, vars: Readonly<Record<string, string>>) => string
  /** read_skill: the body of a non-always skill, or undefined. */
  readonly readSkill: (name: string) => string | undefined
}

/**
 * The placeholders each tool prompt is rendered with. Every verify prompt also gets `{{draft}}` (the
 * extract reply) and must end by asking for `details=…; confidence=0..1`. Children prompts ask for one
 * line per child worth attention: `★★ <child_id> — <why>` (likely holds the answer) or
 * `★ <child_id> — <why>` (may help); nothing else is printed for the other children.
 */
export const toolPromptVariables: Readonly<Record<ToolPromptName, ReadonlyArray<string>>> = {
  view_node_extract: ["question", "node_id", "level", "time_range", "node_text"],
  view_node_verify: ["question", "node_id", "level", "time_range", "node_text", "draft"],
  view_node_children_extract: ["question", "node_id", "children"],
  view_node_children_verify: ["question", "node_id", "children", "draft"],
  search_similar_extract: ["question", "query", "node_id", "level", "time_range", "node_text"],
  search_similar_verify: ["question", "query", "node_id", "level", "time_range", "node_text", "draft"],
  observe_frame_extract: ["question", "node_ids", "subtitle", "ocr"],
  observe_frame_verify: ["question", "node_ids", "subtitle", "ocr", "draft"]
}
