/**
 * LongVidSearch (arXiv 2603.14468; github.com/yrywill/LongVidSearch, dataset on Hugging Face as
 * Fishiing/LongVidSearch). Two released forms of one row:
 * - `dataset/<youtubeID>_qa.json`, one file per video, each a JSON list of `{question, answer, category,
 *   hop_level, evidence_slices, reasoning_chain, logic_check_reasoning, visual_proof, …}` (the video is the
 *   file's name without `_qa.json`: the rows do not name it);
 * - `full-QA(3000).json`, one list of the same rows, each with its video in `vid` (the baseline's main.py
 *   reads `ann["vid"]`).
 * The questions are open-ended: no options, the key is the free-text reference answer, judged by models
 * (three judges, majority), so an answer is unscored until judged. The rows carry no id; a question's id is
 * `<vid>_<n>`, n counting that video's rows from 0 in file order, the same in both forms.
 * `evidence_slices` are the gold clips: 1-based indices of the video's clips (`slice_num` of
 * video-caption.parquet, which `vtree tree import --from longvidsearch` turns into L3 nodes whose id ends
 * `_L3_<clip>`). Categories: `category` (Causal_Inference, Global_Summary, Visual_Tracking, State_Mutation)
 * and `hop_level` (`2-Hop`, `3-Hop`, `4-Hop`: the number of gold clips).
 * Export: JSON Lines, one question a line, with the answer as written, the clips viewed and cited, and the
 * tool calls (the benchmark's cost measure), when the caller read them (QuestionResult.trace).
 */
import { Either, Schema } from "effect"
import * as NodePath from "node:path"
import { accuracyOfOutcomes, type GroupAccuracy, type Outcome } from "../../domain/Outcome.js"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import type {
  Benchmark,
  BenchmarkInput,
  BenchmarkQuestion,
  Categories,
  Headline,
  InputFile,
  QuestionResult
} from "./Benchmark.js"
import { isRecord, NonBlank, rowDecoder, rowsHave, rowsOf, sampleRows } from "./Rows.js"

const Clip = Schema.Int.pipe(Schema.positive())

const Row = Schema.Struct({
  vid: Schema.optional(NonBlank),
  question: NonBlank,
  answer: NonBlank,
  category: NonBlank,
  hop_level: Schema.Union(NonBlank, Schema.Int),
  evidence_slices: Schema.Array(Clip),
  reasoning_chain: Schema.optional(Schema.NullOr(Schema.String))
})

const fixes: Record<string, string> = {
  vid: `set "vid" to the video's YouTube id (its folder under --trees)`,
  question: `put the question text in "question"`,
  answer: `put the reference answer's text in "answer"`,
  category: `set "category" to one of ${"Causal_Inference, Global_Summary, Visual_Tracking, State_Mutation"}`,
  hop_level: `set "hop_level" to "2-Hop", "3-Hop" or "4-Hop"`,
  evidence_slices: `write "evidence_slices" as the gold clips' 1-based indices, e.g. [12, 45]`
}
const defaultFix = "fix the row (LongVidSearch's dataset/<youtubeID>_qa.json files show the expected shape)"
const decodeRow = rowDecoder(Row, fixes, defaultFix)

/** What every row holds; `vid` only in the full-QA file. */
const required = ["question", "answer", "category", "hop_level", "evidence_slices"]

/** The paper's category order (its statistics table). */
export const longVidSearchCategories = ["Causal_Inference", "Global_Summary", "Visual_Tracking", "State_Mutation"]
export const hopLevels = ["2-Hop", "3-Hop", "4-Hop"]

/** `-7wwfGJXEZg_qa.json` → `-7wwfGJXEZg`; any other name loses only its extension. */
export const videoOfQaFile = (file: string): string => NodePath.basename(file).replace(/(_qa)?\.json$/i, "")

const hopLabel = (hop: string | number): string => (typeof hop === "number" ? `${hop}-Hop` : hop.trim())

const decodeFile = (input: InputFile, counts: Map<string, number>) =>
  Either.gen(function*() {
    const file = input.file
    const rows = yield* rowsOf(input, "pass LongVidSearch's dataset/<youtubeID>_qa.json or full-QA(3000).json")
    const out: Array<BenchmarkQuestion> = []
    for (const { location, row } of rows) {
      const r = yield* decodeRow(file, location, row)
      const videoId = r.vid?.trim() ?? videoOfQaFile(file)
      if (r.evidence_slices.length === 0) {
        return yield* Either.left(rowError(file, location, "evidence_slices", "is empty", fixes.evidence_slices!))
      }
      const n = counts.get(videoId) ?? 0
      counts.set(videoId, n + 1)
      const category = r.category.trim()
      const hop = hopLabel(r.hop_level)
      out.push({
        benchmark: "longvidsearch",
        id: `${videoId}_${n}`,
        videoId,
        question: r.question.trim(),
        options: [],
        key: r.answer.trim(),
        originalKey: r.answer,
        taskType: category,
        categories: [{ axis: "category", labels: [category] }, { axis: "hop level", labels: [hop] }],
        durationSeconds: null,
        durationGroup: null,
        domain: null,
        source: { file, location },
        row
      })
    }
    return out
  })

const decode = (input: BenchmarkInput): Either.Either<ReadonlyArray<BenchmarkQuestion>, QuestionLoadError> =>
  Either.gen(function*() {
    const files = input._tag === "File" ? [input.file] : input.files
    const counts = new Map<string, number>()
    const out: Array<BenchmarkQuestion> = []
    for (const f of files) for (const question of yield* decodeFile(f, counts)) out.push(question)
    return out
  })

const fileFits = (f: InputFile): boolean =>
  f.content._tag === "Json" && Array.isArray(f.content.value) && rowsHave(f.content.value.slice(0, 3), required)

const detect = (input: BenchmarkInput): boolean =>
  input._tag === "Folder"
    ? input.files.length > 0 && input.files.every(fileFits)
    : rowsHave(sampleRows(input), required)

const categories = (q: BenchmarkQuestion): Categories => q.categories

/** The gold clips of a stored row (its `evidence_slices`), in order, each once; none when the row has none. */
export const goldClipsOf = (row: unknown): ReadonlyArray<number> => {
  const slices = isRecord(row) ? row["evidence_slices"] : undefined
  if (!Array.isArray(slices)) return []
  return [...new Set(slices.filter((s): s is number => typeof s === "number" && Number.isInteger(s) && s > 0))]
}

const groupsOf = (
  results: ReadonlyArray<QuestionResult>,
  outcomeFor: (r: QuestionResult) => Outcome,
  axis: string,
  order: ReadonlyArray<string>
): ReadonlyArray<GroupAccuracy> => {
  const groups = new Map<string, Array<Outcome>>()
  for (const r of results) {
    for (const label of r.question.categories.find((c) => c.axis === axis)?.labels ?? []) {
      groups.set(label, [...(groups.get(label) ?? []), outcomeFor(r)])
    }
  }
  const rank = (label: string) => (order.includes(label) ? order.indexOf(label) : order.length)
  return [...groups.keys()]
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => ({ key, ...accuracyOfOutcomes(groups.get(key)!) }))
}

/**
 * The headline from judged outcomes (the judges' majority per question id, e.g. ReportJudges'
 * judgedOutcomes): overall, per category and per hop level. A question the map does not hold is unscored:
 * a free-text answer is never right or wrong by letter.
 */
export const judgedHeadline = (
  results: ReadonlyArray<QuestionResult>,
  outcomes: ReadonlyMap<string, Outcome>
): Headline => {
  const outcomeFor = (r: QuestionResult): Outcome => outcomes.get(r.question.id) ?? "unscored"
  return {
    benchmark: "longvidsearch",
    overall: accuracyOfOutcomes(results.map(outcomeFor)),
    primary: null,
    axes: [
      { axis: "category", groups: groupsOf(results, outcomeFor, "category", longVidSearchCategories) },
      { axis: "hop level", groups: groupsOf(results, outcomeFor, "hop level", hopLevels) }
    ]
  }
}

/** One line of the export. */
export interface LongVidSearchExportRow {
  readonly question_id: string
  readonly vid: string
  readonly category: string
  readonly hop_level: string
  readonly question: string
  /** The reference answer. */
  readonly corr_answer: string | null
  /** The agent's answer as written; null when it gave none (or the caller did not read it). */
  readonly answer: string | null
  readonly golden_evidence_clip: ReadonlyArray<number>
  /** Clips the agent cited in its answer's evidence. */
  readonly evidence_clip_ids: ReadonlyArray<number>
  /** Clips it viewed (view_node, observe_frame). */
  readonly viewed_clip_ids: ReadonlyArray<number>
  /** Tool calls (every step but the answer); null when the caller did not read the steps. */
  readonly tool_calls: number | null
}

const labelOn = (q: BenchmarkQuestion, axis: string): string =>
  q.categories.find((c) => c.axis === axis)?.labels[0] ?? ""

export const exportRows = (results: ReadonlyArray<QuestionResult>): ReadonlyArray<LongVidSearchExportRow> =>
  results.map(({ question: q, trace }) => ({
    question_id: q.id,
    vid: q.videoId,
    category: labelOn(q, "category"),
    hop_level: labelOn(q, "hop level"),
    question: q.question,
    corr_answer: q.key,
    answer: trace?.answerText ?? null,
    golden_evidence_clip: goldClipsOf(q.row),
    evidence_clip_ids: trace?.citedClips ?? [],
    viewed_clip_ids: trace?.viewedClips ?? [],
    tool_calls: trace?.toolCalls ?? null
  }))

/** JSON Lines: the file's text, one question a line. */
const exportLongVidSearch = (results: ReadonlyArray<QuestionResult>): string =>
  exportRows(results).map((row) => JSON.stringify(row) + "\n").join("")

export const longVidSearch: Benchmark = {
  name: "longvidsearch",
  title: "LongVidSearch (the dataset/ folder of <youtubeID>_qa.json files, or full-QA(3000).json)",
  // None yet: the prompt packs' categories.json give its categories no readable name or skill, so the agent
  // sees the label as written (`Causal_Inference`), as for a custom file's task type.
  taskTypes: [],
  fields: required,
  fileHints: [/longvidsearch/i, /_qa\.json$/i, /^full-QA/i],
  detect,
  decode,
  categories,
  headline: (results) => judgedHeadline(results, new Map()),
  export: exportLongVidSearch
}
