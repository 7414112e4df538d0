/**
 * Prompt assembly from an already-loaded pack: pure string work, so every mode can be tested without
 * touching the file system.
 */
import { agentDefaults } from "../../domain/RunConfig.js"
import { type CategoryMap, findCategory, labelsOf, type QuestionKind, sectionOf, shownName } from "./Categories.js"
import type {
  Labels,
  PromptManager,
  QuestionHint,
  SystemPromptOptions,
  ToolPromptName,
  UserPromptInput
} from "./PromptManager.js"
import { type Skill, skillSeparator, type SkillSet } from "./Skills.js"

/** The agent tools a pack describes in `tools.md` (one `## name` section each). */
export const agentToolNames = [
  "view_node",
  "search_similar",
  "observe_frame",
  "read_skill",
  "external_search",
  "external_read",
  "submit_answer"
] as const
export type AgentToolName = (typeof agentToolNames)[number]

/** Placeholders each pack file must contain (`required`) or may contain (`optional`). */
export const packPlaceholders = {
  system: { required: ["tools", "skills"], optional: ["max_steps"] },
  user: { required: ["question", "options", "root_ids"], optional: ["task_type", "benchmark_note"] },
  read_skill: { required: ["catalog"], optional: [] }
} as const

/** The agent's step budget written into `{{max_steps}}` when the caller does not say (`--max-steps`). */
export const defaultMaxSteps = agentDefaults.maxSteps

export interface PromptPackContents {
  readonly dir: string
  /** `system.md`, with `{{tools}}`, `{{skills}}` and optionally `{{max_steps}}`. */
  readonly system: string
  /** `user.md`; a line holding `{{task_type}}` or `{{benchmark_note}}` is dropped when that value is empty. */
  readonly user: string
  /** `tools.md` split into its sections; the read_skill section holds `{{catalog}}`. */
  readonly tools: Readonly<Record<AgentToolName, string>>
  readonly toolPrompts: Readonly<Record<ToolPromptName, string>>
  readonly labels: Labels
  readonly skills: SkillSet
  /** `categories.json`; empty when the pack has none. */
  readonly categories: CategoryMap
}

/**
 * What the agent is told about a question's kind. The skill, first found: a label's category skill, a skill
 * whose `task_type` header names a label (packs written before categories.json), the benchmark's skill,
 * `_default`.
 */
export const questionHint = (skills: SkillSet, categories: CategoryMap, kind: QuestionKind): QuestionHint => {
  const labels = labelsOf(kind)
  const entries = labels.map((label) => ({ label, entry: findCategory(categories, kind.benchmark, label) }))
  const section = sectionOf(categories, kind.benchmark)
  const named = (name: string | null | undefined): Skill | undefined =>
    name === null || name === undefined ? undefined : skills.skills.find((s) => s.name === name)
  const byHeader = labels.find((label) => skills.hasTaskType(label))
  const skill = named(entries.find(({ entry }) => entry !== undefined && entry.skill !== null)?.entry?.skill) ??
    (byHeader === undefined ? undefined : skills.forTaskType(byHeader)) ??
    named(section?.skill) ??
    skills.forTaskType(undefined)
  return {
    taskType: entries.map(({ entry, label }) => (entry === undefined ? label : shownName(entry))).join(", "),
    skill: skill?.name ?? null,
    note: section?.note ?? ""
  }
}

const placeholder = /\{\{([A-Za-z0-9_]+)\}\}/g

/**
 * One pass over the template, so text inside a value (node text may contain braces) is never expanded
 * again; an unknown placeholder stays as written.
 */
export const fillPlaceholders = (template: string, vars: Readonly<Record<string, string>>): string =>
  template.replace(
    placeholder,
    (whole, name: string) => Object.prototype.hasOwnProperty.call(vars, name) ? vars[name]! : whole
  )

/** The distinct placeholder names a template uses, in order of first use. */
export const placeholdersIn = (template: string): ReadonlyArray<string> => [
  ...new Set(Array.from(template.matchAll(placeholder), (m) => m[1]!))
]

/** Splits `tools.md` at `## name` headings; text before the first heading is a note for pack authors. */
export const parseToolSections = (text: string): ReadonlyMap<string, string> => {
  const sections = new Map<string, string>()
  let current: string | undefined
  let lines: Array<string> = []
  const flush = () => {
    if (current !== undefined) sections.set(current, lines.join("\n").trim())
  }
  for (const line of text.split(/\r?\n/)) {
    const heading = /^##[ \t]+([A-Za-z0-9_]+)[ \t]*$/.exec(line)
    if (heading !== null) {
      flush()
      current = heading[1]!
      lines = []
    } else {
      lines.push(line)
    }
  }
  flush()
  return sections
}

// Empty placeholders (no skills, no task type) must not leave holes in the prompt.
const tidy = (text: string): string => text.replace(/\n{3,}/g, "\n\n").trim() + "\n"

export const toolsFor = (options: SystemPromptOptions): ReadonlyArray<AgentToolName> =>
  agentToolNames.filter((name) => {
    if (name === "read_skill") return options.skillMode === "manual"
    if (name === "external_search" || name === "external_read") return options.webSearch === true
    return true
  })

export const makePromptManager = (pack: PromptPackContents): PromptManager => {
  const hint = (kind: QuestionKind): QuestionHint => questionHint(pack.skills, pack.categories, kind)

  const describeTools = (options: SystemPromptOptions): string =>
    toolsFor(options)
      .map((name) => {
        const body = name === "read_skill"
          ? fillPlaceholders(pack.tools.read_skill, { catalog: pack.skills.catalog })
          : pack.tools[name]
        return `### ${name}\n${body}`
      })
      .join("\n\n")

  const skillsText = (options: SystemPromptOptions): string => {
    switch (options.skillMode) {
      case "none":
        return ""
      case "manual":
        return pack.skills.alwaysText
      case "auto": {
        const name = hint(options).skill
        const skill = pack.skills.skills.find((s) => s.name === name)
        return [pack.skills.alwaysText, skill?.body ?? ""].filter((text) => text !== "").join(skillSeparator)
      }
    }
  }

  return {
    dir: pack.dir,
    labels: pack.labels,
    skills: pack.skills.skills,
    categories: pack.categories,
    hint,
    systemPrompt: (options) =>
      tidy(fillPlaceholders(pack.system, {
        tools: describeTools(options),
        skills: skillsText(options),
        max_steps: String(options.maxSteps ?? defaultMaxSteps)
      })),
    userPrompt: (input: UserPromptInput) => {
      const { note, taskType } = hint(input)
      const optional: Record<string, string> = { task_type: taskType, benchmark_note: note }
      const empty = Object.keys(optional).filter((name) => optional[name] === "").map((name) => `{{${name}}}`)
      const template = pack.user.split(/\r?\n/).filter((line) => !empty.some((p) => line.includes(p))).join("\n")
      return tidy(fillPlaceholders(template, {
        question: input.question.trim(),
        // No options: an open-ended question, answered in words (the pack's note says so where they would be).
        options: input.options.length === 0
          ? pack.labels.openQuestion
          : input.options.map((option) => option.trim()).join("\n"),
        root_ids: [...input.rootIds].sort().join(", "),
        ...optional
      }))
    },
    toolPrompt: (name, vars) => fillPlaceholders(pack.toolPrompts[name], vars),
    readSkill: pack.skills.readSkill
  }
}
