/**
 * Video-MME-v2 as released: `test.parquet` (3,200 rows; the loader reads Parquet into table rows) of
 * `{video_id, question_id: "001-1", question, options: "A. …\nB. …" (up to H), answer, level, group_type:
 * relevance | logic, group_structure: "[1, 2, 3, 4]" | "[1, [2, 3], 4]" | "[[1, 2], 3, 4]", second_head,
 * third_head}`. A video's four questions are one group, scored as VideoMmeV2Groups.ts says.
 * Headline: the strict group score (an unread answer is wrong) overall, per level, group type and category,
 * beside per-question accuracy. `videoMmeV2Official` is the figure the benchmark's script prints.
 * Export: the TSV that script's `evaluate` reads (`prediction` "" when unanswered, which it scores −1).
 */
import { Either, Schema } from "effect"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type {
  Benchmark,
  BenchmarkInput,
  BenchmarkQuestion,
  Categories,
  GroupScores,
  InputFile,
  QuestionResult
} from "./Benchmark.js"
import { keyError, labelledOptions, normalizeKey } from "./Options.js"
import { IdField, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"
import { headlineOf } from "./Scoring.js"
import {
  groupScore,
  type GroupStructure,
  groupStructureOf,
  groupStructures,
  type Mark,
  meanOf,
  meansBy,
  relevanceScore,
  strictMark
} from "./VideoMmeV2Groups.js"

const OptionalText = Schema.optional(Schema.NullOr(Schema.String))

const Row = Schema.Struct({
  video_id: IdField,
  question_id: IdField,
  question: NonBlank,
  options: NonBlank,
  answer: OptionalText,
  level: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  group_type: Schema.Literal("relevance", "logic"),
  group_structure: OptionalText,
  second_head: OptionalText,
  third_head: OptionalText
})
type Row = typeof Row.Type

const fixes: Record<string, string> = {
  video_id: `set "video_id" to the video's id (its tree folder's name)`,
  question_id: `give every row a unique "question_id" such as "001-1"`,
  question: `put the question text in "question"`,
  options: `write "options" as one text, an option per line: "A. …\\nB. …"`,
  answer: `set "answer" to the right option's letter`,
  level: "use the level as released (1, 2 or 3)",
  group_type: `use "relevance" or "logic"`,
  group_structure: `use ${groupStructures.map((s) => `"${s}"`).join(", ")}`
}
const decodeRow = rowDecoder(Row, fixes, "fix the row (docs/benchmarks.md, Video-MME-v2)")

const fields = ["video_id", "question_id", "question", "options", "group_type", "group_structure"]

/** "A. …\nB. …" as a list; a line that opens no label belongs to the option above it. */
export const splitOptions = (text: string): ReadonlyArray<string> =>
  text.split(/\r?\n(?=\s*\(?[A-Z][.):])/).map((o) => o.replace(/\s*\r?\n\s*/g, " ").trim()).filter((o) => o !== "")

const textOrNull = (text: string | number | null | undefined): string | null =>
  text === null || text === undefined || String(text).trim() === "" ? null : String(text).trim()

const toQuestion = (file: string, location: string, r: Row, original: unknown) =>
  Either.gen(function*() {
    if (r.group_type === "logic" && groupStructureOf(r.group_structure ?? "") === null) {
      return yield* Either.left(
        rowError(
          file,
          location,
          "group_structure",
          `is ${JSON.stringify(r.group_structure ?? null)}`,
          fixes.group_structure!
        )
      )
    }
    const options = yield* labelledOptions(splitOptions(r.options), file, location, "options", fixes.options!)
    const raw = r.answer?.trim() ?? ""
    const key = raw === "" ? null : normalizeKey(raw, options.length, "letter")
    if (raw !== "" && key === null) {
      return yield* Either.left(keyError(file, location, "answer", r.answer, options.length, "letter"))
    }
    const question: BenchmarkQuestion = {
      benchmark: "videommev2",
      id: String(r.question_id).trim(),
      videoId: String(r.video_id).trim(),
      question: r.question.trim(),
      options,
      key,
      originalKey: key === null ? null : raw,
      taskType: textOrNull(r.second_head) ?? r.group_type,
      categories: [],
      durationSeconds: null,
      durationGroup: null,
      domain: null,
      source: { file, location },
      row: original
    }
    return { ...question, categories: categories(question) }
  })

const decodeFile = (input: InputFile) =>
  Either.gen(function*() {
    const rows = yield* rowsOf(input, "pass Video-MME-v2's test.parquet as released")
    const out: Array<BenchmarkQuestion> = []
    for (const { location, row } of rows) {
      out.push(yield* toQuestion(input.file, location, yield* decodeRow(input.file, location, row), row))
    }
    return out
  })

const decodeOf = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  input._tag === "File"
    ? decodeFile(input.file)
    : Either.left(rowError(input.dir, null, null, "is a folder", "pass Video-MME-v2's test.parquet itself"))

/** The row's own fields, decoded again from the kept row (a stored run's questions carry it). */
const rowOf = (q: BenchmarkQuestion): Row | null => {
  const decoded = Schema.decodeUnknownEither(Row)(q.row)
  return Either.isRight(decoded) ? decoded.right : null
}

const categories = (q: BenchmarkQuestion): Categories => {
  const r = rowOf(q)
  const label = (text: string | number | null | undefined) => {
    const t = textOrNull(text)
    return t === null ? [] : [t]
  }
  return [
    { axis: "level", labels: label(r?.level) },
    { axis: "group type", labels: label(r?.group_type) },
    { axis: "second head", labels: label(r?.second_head) },
    { axis: "third head", labels: label(r?.third_head) }
  ]
}

interface Group {
  readonly videoId: string
  readonly results: ReadonlyArray<QuestionResult>
  /** The last question's row: the group's level, type, structure and categories. */
  readonly last: Row
  readonly structure: GroupStructure | null
}

const questionNumber = (id: string): number => Number(/-(\d+)$/.exec(id)?.[1] ?? Number.NaN)

/**
 * The groups, in the order their first question appears, each in question-number order: a video's four
 * questions, as the script's `i // 4` finds them in the released file. A group short of four questions (a part
 * of the set was run) or with one keyless is left out and counted.
 */
export const groupsOf = (
  results: ReadonlyArray<QuestionResult>
): { readonly groups: ReadonlyArray<Group>; readonly incomplete: number } => {
  const byVideo = new Map<string, Array<QuestionResult>>()
  for (const r of results) byVideo.set(r.question.videoId, [...(byVideo.get(r.question.videoId) ?? []), r])
  const groups: Array<Group> = []
  let incomplete = 0
  for (const [videoId, list] of byVideo) {
    const ordered = list.map((r, i) => ({ r, i })).sort((a, b) =>
      (questionNumber(a.r.question.id) - questionNumber(b.r.question.id)) || a.i - b.i
    ).map(({ r }) => r)
    const last = rowOf(ordered.at(-1)!.question)
    if (ordered.length !== 4 || last === null || ordered.some((r) => r.question.key === null)) {
      incomplete++
      continue
    }
    groups.push({ videoId, results: ordered, last, structure: groupStructureOf(last.group_structure ?? "") })
  }
  return { groups, incomplete }
}

/** The script's per-question score: 1 right, 0 wrong, −1 when no letter could be read. */
export const officialMark = ({ prediction, question }: QuestionResult): Mark =>
  prediction === null ? -1 : prediction === question.key ? 1 : 0

const marksOf = (g: Group, strict: boolean): ReadonlyArray<Mark> =>
  g.results.map((r) => (strict ? strictMark(officialMark(r)) : officialMark(r)))

const scoreOfGroup = (strict: boolean) => (g: Group): number =>
  groupScore(marksOf(g, strict), g.last.group_type, g.structure)

const levelOf = (g: Group): string | null => textOrNull(g.last.level)

const headlineGroupScores = (
  results: ReadonlyArray<QuestionResult>
): GroupScores & { readonly total: number | null } => {
  const { groups, incomplete } = groupsOf(results)
  const strict = scoreOfGroup(true)
  const unread = groups.flatMap((g) => g.results).filter((r) => r.prediction === null).length
  const touched = (type: string) =>
    groups.filter((g) => g.last.group_type === type && g.results.some((r) => r.prediction === null)).length
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`
  const note = `${count(groups.length, "group")} of four; relevance by the number right (0/6.25/25/56.25/100 %),` +
    " logic by the chain of leading right answers; an unread answer counts wrong" +
    (unread === 0
      ? ""
      : `; ${count(unread, "unread answer")}, which the official script scores −1 (a right answer taken away in ${
        count(touched("relevance"), "relevance group")
      }, a right link in ${count(touched("logic"), "logic group")})`) +
    (incomplete === 0 ? "" : `; ${count(incomplete, "group")} left out (not all four questions run, or a key missing)`)
  return {
    note,
    total: meanOf(groups.map(strict)),
    axes: [
      { axis: "level", groups: meansBy(groups, levelOf, strict) },
      { axis: "group type", groups: meansBy(groups, (g) => g.last.group_type, strict) },
      { axis: "second head", groups: meansBy(groups, (g) => textOrNull(g.last.second_head), strict) },
      { axis: "third head", groups: meansBy(groups, (g) => textOrNull(g.last.third_head), strict) }
    ]
  }
}

/** What evaluation/test_video_mme_v2.py prints (as fractions of 1, where it prints percentages). */
export interface VideoMmeV2Official {
  /** `final_rating.total`: the mean group score. */
  readonly total: number
  /** `level_1` … `level_3` (0 where a level has no group, as the script prints it). */
  readonly levels: Readonly<Record<string, number>>
  readonly relevance: number
  readonly relevanceLinear: number
  readonly logic: number
  readonly secondHead: Readonly<Record<string, number>>
  readonly thirdHead: Readonly<Record<string, number>>
  /** "Simple accuracy (valid only)": right over the answers a letter was read from; null with none. */
  readonly validAccuracy: number | null
  /** Answers the script scores −1 (no letter read), and the groups holding one, per group type. */
  readonly unread: number
  readonly touchedGroups: { readonly relevance: number; readonly logic: number }
  readonly groups: number
  /** Groups left out: not all four questions run, or a key missing (the script would misgroup them). */
  readonly incomplete: number
}

const meansOf = (lists: Map<string, Array<number>>): Record<string, number> =>
  Object.fromEntries([...lists].map(([k, v]) => [k, meanOf(v) ?? 0]))

const push = (lists: Map<string, Array<number>>, key: string, value: number) =>
  lists.set(key, [...(lists.get(key) ?? []), value])

/**
 * The official figure, transcribing `evaluate` and `get_final_rating` of evaluation/test_video_mme_v2.py: every
 * answer marked 1/0/−1, the −1 kept in the marks (relevance: subtracted in the sum; logic: a right link), a
 * group's level, type, structure and heads its last question's, empty means printed as 0.
 */
export const videoMmeV2Official = (results: ReadonlyArray<QuestionResult>): VideoMmeV2Official => {
  const { groups, incomplete } = groupsOf(results)
  const score = scoreOfGroup(false)
  const levels = new Map<string, Array<number>>([["1", []], ["2", []], ["3", []]])
  const second = new Map<string, Array<number>>()
  const third = new Map<string, Array<number>>()
  const relevance: Array<number> = []
  const linear: Array<number> = []
  const logic: Array<number> = []
  for (const g of groups) {
    const s = score(g)
    if (g.last.group_type === "relevance") {
      relevance.push(s)
      linear.push(relevanceScore(marksOf(g, false)).linear)
    } else logic.push(s)
    const level = levelOf(g)
    if (level !== null && level !== "None") push(levels, String(Math.trunc(Number(level))), s)
    push(second, g.last.second_head ?? "None", s)
    push(third, g.last.third_head ?? "None", s)
  }
  const marks = groups.flatMap((g) => marksOf(g, false))
  const valid = marks.filter((m) => m >= 0)
  const touched = (type: string) => groups.filter((g) => g.last.group_type === type && marksOf(g, false).includes(-1))
  return {
    total: meanOf(groups.map(score)) ?? 0,
    levels: meansOf(levels),
    relevance: meanOf(relevance) ?? 0,
    relevanceLinear: meanOf(linear) ?? 0,
    logic: meanOf(logic) ?? 0,
    secondHead: meansOf(second),
    thirdHead: meansOf(third),
    validAccuracy: meanOf(valid),
    unread: marks.length - valid.length,
    touchedGroups: { relevance: touched("relevance").length, logic: touched("logic").length },
    groups: groups.length,
    incomplete
  }
}

const tsvColumns = [
  "index",
  "video_id",
  "question_id",
  "question",
  "options",
  "answer",
  "level",
  "group_type",
  "group_structure",
  "second_head",
  "third_head",
  "prediction"
] as const

/** A cell as pandas' to_csv writes it: quoted (quotes doubled) when it holds a tab, a quote or a line break. */
const tsvCell = (value: unknown): string => {
  const text = value === null || value === undefined ? "" : String(value)
  return /[\t"\r\n]/.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text
}

/**
 * The TSV the script's `evaluate` reads (`pd.read_csv(…, sep='\t')`): every question, each video's four in
 * order so its `i // 4` finds the groups, `prediction` the letter or "" (the script scores "" −1).
 */
const exportTsv = (results: ReadonlyArray<QuestionResult>): string => {
  const order = new Map<string, number>()
  for (const r of results) if (!order.has(r.question.videoId)) order.set(r.question.videoId, order.size)
  const sorted = results.map((r, i) => ({ r, i })).sort((a, b) =>
    order.get(a.r.question.videoId)! - order.get(b.r.question.videoId)! ||
    (questionNumber(a.r.question.id) - questionNumber(b.r.question.id)) || a.i - b.i
  )
  const lines = sorted.map(({ r }, index) => {
    const row = rowOf(r.question)
    const q = r.question
    const cells = [
      index,
      row?.video_id ?? q.videoId,
      q.id,
      q.question,
      row?.options ?? q.options.join("\n"),
      q.key ?? "",
      row?.level ?? "",
      row?.group_type ?? "",
      row?.group_structure ?? "",
      row?.second_head ?? "",
      row?.third_head ?? "",
      r.prediction ?? ""
    ]
    return cells.map(tsvCell).join("\t")
  })
  return [tsvColumns.join("\t"), ...lines].join("\n") + "\n"
}

export const videoMmeV2: Benchmark = {
  name: "videommev2",
  title: "Video-MME-v2 (test.parquet)",
  taskTypes: [],
  fields,
  fileHints: [/video-?mme-?v2/i, /^test\.parquet$/i],
  detect: (input) => input._tag === "File" && rowsHave(sampleRows(input), fields),
  decode: decodeOf,
  categories,
  headline: (results) => {
    const base = headlineOf("videommev2", results, categories, [
      { axis: "level" },
      { axis: "group type", order: ["relevance", "logic"] },
      { axis: "second head" },
      { axis: "third head" }
    ])
    const { total, ...groupScores } = headlineGroupScores(results)
    return { ...base, primary: { name: "group score", value: total }, groupScores }
  },
  export: exportTsv
}
