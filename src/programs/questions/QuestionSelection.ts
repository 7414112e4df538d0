// Which questions a run asks (`vtree infer --video-ids --question-ids --task-types --n-samples`).
import type { Question } from "../../domain/Question.js"

type Filter = (questions: ReadonlyArray<Question>, values: ReadonlyArray<string>) => ReadonlyArray<Question>

const trim = (value: string): string => value.trim()
const taskKey = (t: string): string => t.trim().toLowerCase()

/** Questions whose field, normalized, is among the normalized values; an empty list keeps all. */
const filterBy =
  (field: (question: Question) => string, normalize: (value: string) => string): Filter => (questions, values) => {
    if (values.length === 0) return questions
    const wanted = new Set(values.map(normalize))
    return questions.filter((q) => wanted.has(normalize(field(q))))
  }

/** Questions of the given videos; an empty list keeps all. */
export const filterByVideoIds: Filter = filterBy((q) => q.videoId, trim)

/** Questions with the given ids; an empty list keeps all. */
export const filterByQuestionIds: Filter = filterBy((q) => q.questionId, trim)

/** Questions of the given task types, compared case-insensitively; an empty list keeps all. */
export const filterByTaskTypes: Filter = filterBy((q) => q.taskType, taskKey)

/** The first `n` questions in file order (deterministic `--n-samples`); n ≤ 0 keeps none. */
export const takeFirst = (questions: ReadonlyArray<Question>, n: number): ReadonlyArray<Question> =>
  questions.slice(0, Math.max(0, Math.floor(n)))

export interface QuestionSelection {
  readonly videoIds?: ReadonlyArray<string> | undefined
  readonly questionIds?: ReadonlyArray<string> | undefined
  readonly taskTypes?: ReadonlyArray<string> | undefined
  readonly nSamples?: number | undefined
}

export interface SelectedQuestions {
  readonly questions: ReadonlyArray<Question>
  /** Requested values that matched no question in the input, so the CLI can warn or fail. */
  readonly unmatched: {
    readonly videoIds: ReadonlyArray<string>
    readonly questionIds: ReadonlyArray<string>
    readonly taskTypes: ReadonlyArray<string>
  }
}

/** Apply the id and task-type filters (all must hold), then keep the first `nSamples`. */
export const selectQuestions = (
  questions: ReadonlyArray<Question>,
  selection: QuestionSelection
): SelectedQuestions => {
  let selected = filterByVideoIds(questions, selection.videoIds ?? [])
  selected = filterByQuestionIds(selected, selection.questionIds ?? [])
  selected = filterByTaskTypes(selected, selection.taskTypes ?? [])
  if (selection.nSamples !== undefined) selected = takeFirst(selected, selection.nSamples)
  const videoIds = new Set(questions.map((q) => q.videoId))
  const questionIds = new Set(questions.map((q) => q.questionId))
  const taskTypes = new Set(questions.map((q) => taskKey(q.taskType)))
  return {
    questions: selected,
    unmatched: {
      videoIds: (selection.videoIds ?? []).filter((v) => !videoIds.has(v.trim())),
      questionIds: (selection.questionIds ?? []).filter((v) => !questionIds.has(v.trim())),
      taskTypes: (selection.taskTypes ?? []).filter((t) => !taskTypes.has(taskKey(t)))
    }
  }
}

/** `"a, b,c"` → `["a", "b", "c"]`: list flags split on commas only, as task types hold spaces. */
export const splitList = (value: string): ReadonlyArray<string> =>
  value.split(",").map((v) => v.trim()).filter((v) => v.length > 0)
