/**
 * A pack's `categories.json`: per benchmark, each category's readable name beside its code and the skill it
 * maps to, a note every question of the benchmark gets (EgoSchema's "C is the camera wearer") and the skill
 * for questions without a category of their own. Pure: the loader hands in the text and the pack's skills;
 * `questionHint` is what the agent is told about one question.
 *
 * ```json
 * { "nextqa": { "categories": { "CW": { "name": "causal \"why\"", "skill": "action-reasoning" } } },
 *   "egoschema": { "note": "…", "skill": "egocentric" } }
 * ```
 */
import { Either, Schema } from "effect"
import { firstDecodeIssue, jsonSyntaxProblem } from "../../domain/DecodeIssue.js"
import { BenchmarkName } from "../../domain/Question.js"
import { lineColumn, maxJsonDepth, tooDeepAt } from "../../domain/UserJson.js"
import type { Skill } from "./Skills.js"

export const categoriesFile = "categories.json"

export interface CategoryEntry {
  /** The label as the benchmark writes it: `CW`, `Counting Problem`, `needle`. */
  readonly code: string
  /** How the agent reads it; the code when the pack gives no name. */
  readonly name: string
  /** The name of the skill it maps to; null: none of its own. */
  readonly skill: string | null
}

export interface BenchmarkHints {
  /** Told with every question of the benchmark; "" when none. */
  readonly note: string
  /** The skill of a question none of whose labels maps to one; null: the pack's `_default`. */
  readonly skill: string | null
  readonly categories: ReadonlyArray<CategoryEntry>
}

/** By benchmark name; a benchmark the file leaves out has no hints. */
export type CategoryMap = ReadonlyMap<string, BenchmarkHints>

export const emptyCategoryMap: CategoryMap = new Map()

const Text = Schema.String.pipe(Schema.pattern(/\S/)).annotations({ message: () => "expected non-empty text" })
const Entry = Schema.Struct({ name: Schema.optional(Text), skill: Schema.optional(Text) })
const Section = Schema.Struct({
  note: Schema.optional(Text),
  skill: Schema.optional(Text),
  categories: Schema.optional(Schema.Record({ key: Schema.String, value: Entry }))
})
const FileSchema = Schema.Record({ key: Schema.String, value: Section })
const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(FileSchema), {
  onExcessProperty: "error",
  errors: "first"
})

const benchmarkNames: ReadonlyArray<string> = BenchmarkName.literals

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase()

/**
 * The map from the text of `categories.json`, every skill it names checked against the pack's skills (by
 * name, any case; not an always-on one, which every prompt has already). Left is a one-line reason
 * without the file name.
 */
export const parseCategories = (text: string, skills: ReadonlyArray<Skill>): Either.Either<CategoryMap, string> => {
  const deep = tooDeepAt(text)
  if (deep !== undefined) {
    return Either.left(`nested more than ${maxJsonDepth} levels deep (${lineColumn(text, deep)}) — fix the file`)
  }
  const decoded = decodeFile(text)
  if (Either.isLeft(decoded)) {
    const syntax = jsonSyntaxProblem(decoded.left)
    if (syntax !== undefined) return Either.left(`not valid JSON (${syntax})`)
    const issue = firstDecodeIssue(decoded.left)
    if (issue.tag === "Unexpected") {
      const parent = issue.path.slice(0, -1).map(String).join(".")
      return Either.left(
        `${parent}: unknown key "${String(issue.path.at(-1))}" — a benchmark takes note, skill and categories; ` +
          "a category takes name and skill"
      )
    }
    if (issue.path.length === 0) return Either.left("expected a JSON object of benchmark → hints")
    const problem = issue.tag === "Missing" ? "is missing" : issue.message
    return Either.left(`${issue.path.map(String).join(".")}: ${problem}`)
  }
  const optional = skills.filter((s) => !s.always)
  const checkSkill = (where: string, name: string | undefined): Either.Either<string | null, string> => {
    if (name === undefined) return Either.right(null)
    const found = skills.find((s) => same(s.name, name))
    if (found === undefined) {
      return Either.left(
        `${where}: no skill named "${name}" in skills/ — use one of ${optional.map((s) => s.name).join(", ")}`
      )
    }
    return found.always
      ? Either.left(`${where}: "${name}" is always on, so it is in every prompt already — name a task skill`)
      : Either.right(found.name)
  }
  const map = new Map<string, BenchmarkHints>()
  for (const [benchmark, section] of Object.entries(decoded.right)) {
    if (!benchmarkNames.includes(benchmark)) {
      return Either.left(`"${benchmark}" is no benchmark vtree reads — use one of ${benchmarkNames.join(", ")}`)
    }
    const skill = checkSkill(`${benchmark}.skill`, section.skill)
    if (Either.isLeft(skill)) return Either.left(skill.left)
    const categories: Array<CategoryEntry> = []
    for (const [code, entry] of Object.entries(section.categories ?? {})) {
      const mapped = checkSkill(`${benchmark}.categories.${code}.skill`, entry.skill)
      if (Either.isLeft(mapped)) return Either.left(mapped.left)
      categories.push({ code, name: entry.name?.trim() ?? code, skill: mapped.right })
    }
    map.set(benchmark, { note: section.note?.trim() ?? "", skill: skill.right, categories })
  }
  return Either.right(map)
}

/** What a question is: its benchmark and its labels on the benchmark's category axis. */
export interface QuestionKind {
  /** `nextqa`, `custom`, …; absent: any benchmark's labels are understood, as for `custom`. */
  readonly benchmark?: string | undefined
  /** The label skills are chosen by. */
  readonly taskType?: string | undefined
  /** Every label, when the question has several (LVBench's question types); else `taskType` alone. */
  readonly taskTypes?: ReadonlyArray<string> | undefined
}

export const labelsOf = (kind: QuestionKind): ReadonlyArray<string> =>
  (kind.taskTypes ?? (kind.taskType === undefined ? [] : [kind.taskType]))
    .map((label) => label.trim())
    .filter((label) => label !== "")

/** A category as the agent reads it: `causal "why" (CW)`; the name alone when it is the code. */
export const shownName = (entry: CategoryEntry): string =>
  same(entry.name, entry.code) ? entry.name : `${entry.name} (${entry.code})`

/**
 * The entry a label names (its code or its name, any case) in the question's benchmark; for `custom` or no
 * benchmark, in `custom`'s section first, then in every benchmark's in the file's order. A real benchmark
 * never borrows another's codes: Video-MME has no `CW`.
 */
export const findCategory = (map: CategoryMap, benchmark: string | undefined, label: string) => {
  const inSection = (name: string) =>
    map.get(name)?.categories.find((entry) => same(entry.code, label) || same(entry.name, label))
  if (benchmark !== undefined && benchmark !== "custom") return inSection(benchmark)
  return inSection("custom") ?? [...map.keys()].map(inSection).find((entry) => entry !== undefined)
}

/** The section whose note and default skill a question gets. */
export const sectionOf = (map: CategoryMap, benchmark: string | undefined): BenchmarkHints | undefined =>
  map.get(benchmark ?? "custom")
