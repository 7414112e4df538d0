/**
 * Loading a prompt pack folder (prompts, skills and labels of one language) into a PromptManager.
 * Everything a pack must hold is checked here, once, so a broken pack fails at start-up with the file and
 * the fix instead of mid-run.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either, Schema } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { firstDecodeIssue, jsonSyntaxProblem } from "../../domain/DecodeIssue.js"
import { lineColumn, maxJsonDepth, tooDeepAt } from "../../domain/UserJson.js"
import { packageRoot } from "../../PackageRoot.js"
import { categoriesFile, type CategoryMap, emptyCategoryMap, parseCategories } from "./Categories.js"
import {
  type LabelKey,
  labelKeys,
  type Labels,
  type PromptManager,
  PromptPackError,
  type PromptPackErrorReason,
  type ToolPromptName,
  toolPromptNames,
  toolPromptVariables
} from "./PromptManager.js"
import { classifySkills, parseSkill, type Skill } from "./Skills.js"
import {
  type AgentToolName,
  agentToolNames,
  makePromptManager,
  packPlaceholders,
  parseToolSections,
  placeholdersIn
} from "./SystemPrompt.js"

/** The files every pack holds besides `skills/*.md`. */
export const packFiles = [
  "system.md",
  "user.md",
  "tools.md",
  "labels.json",
  ...toolPromptNames.map((name) => `${name}.md`)
] as const

export const packagedPacks = ["en", "zh"] as const

/** The folder of a pack shipped with vtree. */
export const packagedPromptsDir = (pack: (typeof packagedPacks)[number] = "en"): string =>
  join(packageRoot(), "prompts", pack)

/**
 * `--prompts` value → folder: none → the packaged `en`; a bare `en` / `zh` that is not a folder here →
 * the packaged pack of that name; anything else is taken as a path.
 */
export const resolvePromptsDir = (value: string | undefined): string => {
  if (value === undefined || value.trim() === "") return packagedPromptsDir("en")
  const pack = packagedPacks.find((name) => name === value)
  return pack !== undefined && !existsSync(value) ? packagedPromptsDir(pack) : value
}

/** What an open-ended question shows as its options in a pack written before open questions. */
export const defaultOpenQuestion = "(none: this is an open question — submit your answer in words, not a letter)"

const LabelsSchema = Schema.Struct({
  ...(Object.fromEntries(labelKeys.map((key) => [key, Schema.NonEmptyString])) as {
    readonly [K in Exclude<LabelKey, "openQuestion">]: typeof Schema.NonEmptyString
  }),
  openQuestion: Schema.optionalWith(Schema.NonEmptyString, { default: () => defaultOpenQuestion })
})
const decodeLabels = Schema.decodeUnknownEither(Schema.parseJson(LabelsSchema), {
  onExcessProperty: "error",
  errors: "all"
})

/** Labels from `labels.json` text; Left is a one-line reason without the file name. */
export const parseLabels = (text: string): Either.Either<Labels, string> => {
  const deep = tooDeepAt(text)
  if (deep !== undefined) {
    return Either.left(`nested more than ${maxJsonDepth} levels deep (${lineColumn(text, deep)}) — fix the file`)
  }
  return decodeLabels(text).pipe(
    Either.mapLeft((error) => {
      const syntax = jsonSyntaxProblem(error)
      if (syntax !== undefined) return `not valid JSON (${syntax})`
      const issue = firstDecodeIssue(error)
      const label = String(issue.path[0] ?? "")
      switch (issue.tag) {
        case "Missing":
          return `missing label "${label}" — add it (the keys are labelKeys in src/programs/prompts/PromptManager.ts)`
        case "Unexpected":
          return issue.path.length === 0
            ? "expected a JSON object of label → text"
            : `unknown label "${label}" — remove it or fix its spelling`
        default:
          return issue.path.length === 0
            ? "expected a JSON object of label → text"
            : `label "${label}": expected non-empty text`
      }
    }),
    Either.flatMap((labels) => {
      const missing = ["tool", "tools"].filter((name) => !labels.unknownToolMessage.includes(`{{${name}}}`))
      return missing.length === 0
        ? Either.right(labels)
        : Either.left(
          `label "unknownToolMessage" must contain ${
            missing.map((m) => `{{${m}}}`).join(" and ")
          } — the loop fills them in`
        )
    })
  )
}

/** Left explains the first placeholder problem of a template. */
export const checkPlaceholders = (
  template: string,
  required: ReadonlyArray<string>,
  optional: ReadonlyArray<string> = []
): Either.Either<void, string> => {
  const used = placeholdersIn(template)
  const missing = required.filter((name) => !used.includes(name))
  if (missing.length > 0) {
    return Either.left(
      `missing placeholder ${missing.map((m) => `{{${m}}}`).join(", ")} — add it where the value belongs`
    )
  }
  const unknown = used.filter((name) => !required.includes(name) && !optional.includes(name))
  if (unknown.length > 0) {
    return Either.left(
      `unknown placeholder ${unknown.map((m) => `{{${m}}}`).join(", ")} — nothing fills it; the known ones are ${
        [...required, ...optional].map((m) => `{{${m}}}`).join(", ")
      }`
    )
  }
  return Either.void
}

// The summarizer reads the last line of every verify reply, so a pack cannot drop that format.
const verifyEnding = /details=[\s\S]*confidence=/

const failPack = (reason: PromptPackErrorReason, file: string, message: string) =>
  Effect.fail(new PromptPackError({ reason, path: file, message: `${file}: ${message}` }))

/** Reading a pack's files, each failure a PromptPackError naming the file and the fix. */
interface PackReader {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly isDirectory: (target: string) => Effect.Effect<boolean>
  readonly read: (file: string) => Effect.Effect<string, PromptPackError>
  readonly check: <A>(file: string, result: Either.Either<A, string>) => Effect.Effect<A, PromptPackError>
}

const makePackReader = (fs: FileSystem.FileSystem, path: Path.Path): PackReader => ({
  fs,
  path,
  isDirectory: (target) =>
    fs.stat(target).pipe(
      Effect.map((info) => info.type === "Directory"),
      Effect.orElseSucceed(() => false)
    ),
  read: (file) =>
    fs.readFileString(file).pipe(
      Effect.catchAll((error) =>
        error._tag === "SystemError" && error.reason === "NotFound"
          ? failPack(
            "NotFound",
            file,
            `missing — every pack needs ${path.basename(file)}; copy it from the en pack and adapt it`
          )
          : failPack("Unreadable", file, `cannot be read (${error.message})`)
      )
    ),
  check: (file, result) => Either.isLeft(result) ? failPack("Invalid", file, result.left) : Effect.succeed(result.right)
})

/** `system.md` or `user.md`, with its placeholders checked. */
const readTemplate = (pack: PackReader, dir: string, name: "system" | "user") =>
  Effect.gen(function*() {
    const file = pack.path.join(dir, `${name}.md`)
    const text = yield* pack.read(file)
    yield* pack.check(file, checkPlaceholders(text, packPlaceholders[name].required, packPlaceholders[name].optional))
    return text
  })

/** `tools.md`: one `## name` section per agent tool, and no other. */
const readToolSections = (pack: PackReader, dir: string) =>
  Effect.gen(function*() {
    const toolsFile = pack.path.join(dir, "tools.md")
    const sections = parseToolSections(yield* pack.read(toolsFile))
    const tools: Partial<Record<AgentToolName, string>> = {}
    for (const name of agentToolNames) {
      const body = sections.get(name)
      if (body === undefined || body === "") {
        return yield* failPack(
          "Invalid",
          toolsFile,
          `no "## ${name}" section — describe the ${name} tool and its args there`
        )
      }
      yield* pack.check(
        toolsFile,
        checkPlaceholders(body, name === "read_skill" ? packPlaceholders.read_skill.required : []).pipe(
          Either.mapLeft((message) => `## ${name}: ${message}`)
        )
      )
      tools[name] = body
    }
    const unknownSection = [...sections.keys()].find((name) =>
      !(agentToolNames as ReadonlyArray<string>).includes(name)
    )
    if (unknownSection !== undefined) {
      return yield* failPack(
        "Invalid",
        toolsFile,
        `"## ${unknownSection}" is not a tool — the tools are ${agentToolNames.join(", ")}`
      )
    }
    return tools as Record<AgentToolName, string>
  })

/** The prompts the tools send (`<name>.md` each), a verify prompt keeping the line the summarizer reads. */
const readToolPrompts = (pack: PackReader, dir: string) =>
  Effect.gen(function*() {
    const toolPrompts: Partial<Record<ToolPromptName, string>> = {}
    for (const name of toolPromptNames) {
      const file = pack.path.join(dir, `${name}.md`)
      const text = yield* pack.read(file)
      yield* pack.check(file, checkPlaceholders(text, toolPromptVariables[name]))
      if (name.endsWith("_verify") && !verifyEnding.test(text)) {
        return yield* failPack(
          "Invalid",
          file,
          "a verify prompt must ask for a final line 'details=…; confidence=0..1' — add it"
        )
      }
      toolPrompts[name] = text
    }
    return toolPrompts as Record<ToolPromptName, string>
  })

/** The `skills/*.md` files, in name order, classified into the pack's skill set. */
const readSkills = (pack: PackReader, dir: string) =>
  Effect.gen(function*() {
    const skillsDir = pack.path.join(dir, "skills")
    if (!(yield* pack.isDirectory(skillsDir))) {
      return yield* failPack("NotFound", skillsDir, "missing — every pack needs a skills/ folder of *.md skill files")
    }
    const skillFiles = (yield* pack.fs.readDirectory(skillsDir).pipe(
      Effect.catchAll((error) => failPack("Unreadable", skillsDir, `cannot be read (${error.message})`))
    )).filter((name) => name.endsWith(".md")).sort()
    const entries: Array<{ file: string; skill: Skill }> = []
    for (const name of skillFiles) {
      const file = pack.path.join(skillsDir, name)
      const skill = yield* pack.check(file, parseSkill(yield* pack.read(file)))
      if (skill !== undefined) entries.push({ file, skill })
    }
    const skills = classifySkills(entries)
    if (Either.isLeft(skills)) return yield* failPack("Invalid", skills.left.file, skills.left.message)
    return skills.right
  })

// Optional: a pack written before the file shows labels as written and picks skills by their task_type.
const readCategories = (pack: PackReader, dir: string, skills: ReadonlyArray<Skill>) =>
  Effect.gen(function*() {
    const categoriesPath = pack.path.join(dir, categoriesFile)
    const categories: CategoryMap = (yield* pack.fs.exists(categoriesPath).pipe(Effect.orElseSucceed(() => false)))
      ? yield* pack.check(categoriesPath, parseCategories(yield* pack.read(categoriesPath), skills))
      : emptyCategoryMap
    return categories
  })

export const loadPromptManager = Effect.fn("PromptPack.loadPromptManager")(function*(dir: string) {
  const path = yield* Path.Path
  const pack = makePackReader(yield* FileSystem.FileSystem, path)
  if (!(yield* pack.isDirectory(dir))) {
    return yield* failPack(
      "NotFound",
      dir,
      "prompt pack folder not found — pass --prompts with a pack folder such as prompts/en"
    )
  }
  const system = yield* readTemplate(pack, dir, "system")
  const user = yield* readTemplate(pack, dir, "user")
  const tools = yield* readToolSections(pack, dir)
  const labelsFile = path.join(dir, "labels.json")
  const labels = yield* pack.check(labelsFile, parseLabels(yield* pack.read(labelsFile)))
  const toolPrompts = yield* readToolPrompts(pack, dir)
  const skills = yield* readSkills(pack, dir)
  const categories = yield* readCategories(pack, dir, skills.skills)
  const manager: PromptManager = makePromptManager({
    dir: path.resolve(dir),
    system,
    user,
    tools,
    toolPrompts,
    labels,
    skills,
    categories
  })
  return manager
})
