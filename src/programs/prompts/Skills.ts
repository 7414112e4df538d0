/**
 * Skill discovery and classification for a prompt pack's skills folder. Pure: the loader hands in file
 * texts, this decides what each file is and how the skills are offered to the agent in each skill mode.
 */
import { Either, Schema } from "effect"
import { firstDecodeIssue, issueLine } from "../../domain/DecodeIssue.js"
import { parseFrontmatter } from "./Frontmatter.js"

/** One skill file of a pack: its frontmatter fields and its body. */
export interface Skill {
  readonly name: string
  readonly description: string
  readonly always: boolean
  readonly taskType: string | null
  /** The body without frontmatter. */
  readonly body: string
}

export const skillSeparator = "\n\n---\n\n"
export const defaultTaskType = "_default"

export interface SkillSet {
  /** Every skill with a name, in file-name order. */
  readonly skills: ReadonlyArray<Skill>
  /** The bodies of the always-on skills joined by `skillSeparator`; "" when there are none. */
  readonly alwaysText: string
  /** `- **name**: description` per non-always skill, one per line. */
  readonly catalog: string
  /** The skill for a task type (exact or case-insensitive match), else the `_default` skill. */
  readonly forTaskType: (taskType: string | undefined) => Skill | undefined
  /** Whether a task type has a skill of its own (no fallback). */
  readonly hasTaskType: (taskType: string) => boolean
  /** read_skill: the body of a non-always skill by name (case-insensitive). */
  readonly readSkill: (name: string) => string | undefined
}

const textField = (expected: string) => Schema.String.annotations({ message: () => expected })

/** The header keys a skill reads (a file without `name` is skipped before this); other keys are ignored. */
const SkillHeader = Schema.Struct({
  name: textField("expected text, e.g. name: counting"),
  description: Schema.optional(textField("expected text — quote it if it is true/false or a number")),
  always: Schema.optional(
    Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${JSON.stringify(issue.actual)}` })
  ),
  task_type: Schema.optional(textField("expected a Video-MME task type or _default"))
})
const decodeHeader = Schema.decodeUnknownEither(SkillHeader)

/**
 * One skill file. `undefined` when it has no `name` (such files are skipped, e.g. drafts or notes);
 * Left is a one-line reason without the file name.
 */
export const parseSkill = (text: string): Either.Either<Skill | undefined, string> =>
  Either.flatMap(
    parseFrontmatter(text),
    ({ body, data }) =>
      data.name === undefined ? Either.right(undefined) : Either.match(decodeHeader(data), {
        onLeft: (error) => Either.left(issueLine(firstDecodeIssue(error))),
        onRight: ({ always, description, name, task_type }) =>
          Either.right({
            name: name.trim(),
            description: description?.trim() ?? "",
            always: always ?? false,
            taskType: task_type?.trim() || null,
            body: body.trim()
          })
      })
  )

const key = (s: string): string => s.trim().toLowerCase()

/** Classifies parsed skills; Left names the file and the clash when two skills claim one name or task type. */
export const classifySkills = (
  entries: ReadonlyArray<{ readonly file: string; readonly skill: Skill }>
): Either.Either<SkillSet, { readonly file: string; readonly message: string }> => {
  const byName = new Map<string, { file: string; skill: Skill }>()
  const byType = new Map<string, { file: string; skill: Skill }>()
  for (const entry of entries) {
    const { file, skill } = entry
    const sameName = byName.get(key(skill.name))
    if (sameName !== undefined) {
      return Either.left({
        file,
        message: `name: "${skill.name}" is already used by ${sameName.file} — skill names must be unique`
      })
    }
    byName.set(key(skill.name), entry)
    // An always-on skill is part of every prompt already; a task type on it would offer it twice.
    if (!skill.always && skill.taskType !== null) {
      const sameType = byType.get(key(skill.taskType))
      if (sameType !== undefined) {
        return Either.left({
          file,
          message:
            `task_type: "${skill.taskType}" is already covered by ${sameType.file} — keep one skill per task type`
        })
      }
      byType.set(key(skill.taskType), entry)
    }
  }
  const skills = entries.map((e) => e.skill)
  const optional = skills.filter((s) => !s.always)
  return Either.right({
    skills,
    alwaysText: skills.filter((s) => s.always).map((s) => s.body).join(skillSeparator),
    catalog: optional.map((s) => `- **${s.name}**: ${s.description}`).join("\n"),
    forTaskType: (taskType) =>
      (taskType === undefined ? undefined : byType.get(key(taskType))?.skill) ??
        byType.get(defaultTaskType)?.skill,
    hasTaskType: (taskType) => byType.has(key(taskType)),
    readSkill: (name) => {
      const found = byName.get(key(name))?.skill
      return found === undefined || found.always ? undefined : found.body
    }
  })
}
