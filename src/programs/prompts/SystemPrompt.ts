/**
 * Prompt assembly from an already-loaded pack: pure string work, so every mode can be tested without
 * touching the file system.
 */
import type { Labels, PromptManager, SystemPromptOptions, ToolPromptName, UserPromptInput } from "./PromptManager.js"
import { skillSeparator, type SkillSet } from "./Skills.js"

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
  user: { required: ["question", "options", "root_ids"], optional: ["task_type"] },
  read_skill: { required: ["catalog"], optional: [] }
} as const

/** The agent's step budget written into `{{max_steps}}` when the caller does not say (DESIGN §6). */
export const defaultMaxSteps = 15

export interface PromptPackContents {
  readonly dir: string
  /** `system.md`, with `{{tools}}`, `{{skills}}` and optionally `{{max_steps}}`. */
  readonly system: string
  /** `user.md`; a line holding `{{task_type}}` is dropped when the question has no task type. */
  readonly user: string
  /** `tools.md` split into its sections; the read_skill section holds `{{catalog}}`. */
  readonly tools: Readonly<Record<AgentToolName, string>>
  readonly toolPrompts: Readonly<Record<ToolPromptName, string>>
  readonly labels: Labels
  readonly skills: SkillSet
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
      case "auto":
        return [pack.skills.alwaysText, pack.skills.forTaskType(options.taskType)?.body ?? ""]
          .filter((text) => text !== "")
          .join(skillSeparator)
    }
  }

  return {
    dir: pack.dir,
    labels: pack.labels,
    skills: pack.skills.skills,
    systemPrompt: (options) =>
      tidy(fillPlaceholders(pack.system, {
        tools: describeTools(options),
        skills: skillsText(options),
        max_steps: String(options.maxSteps ?? defaultMaxSteps)
      })),
    userPrompt: (input: UserPromptInput) => {
      const taskType = input.taskType?.trim() ?? ""
      const template = taskType === ""
        ? pack.user.split(/\r?\n/).filter((line) => !line.includes("{{task_type}}")).join("\n")
        : pack.user
      return tidy(fillPlaceholders(template, {
        question: input.question.trim(),
        options: input.options.map((option) => option.trim()).join("\n"),
        root_ids: [...input.rootIds].sort().join(", "),
        task_type: taskType
      }))
    },
    toolPrompt: (name, vars) => fillPlaceholders(pack.toolPrompts[name], vars),
    readSkill: pack.skills.readSkill
  }
}
