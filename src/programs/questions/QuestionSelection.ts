// Which questions a run asks (`vtree infer --video-ids --question-ids --task-types --n-samples`).
import type { Question } from "../../domain/Question.js"

const keep = <K>(values: ReadonlyArray<K> | undefined): values is ReadonlyArray<K> =>
  values !== undefined && values.length > 0

const taskKey = (t: string): string => t.trim().toLowerCase()

/** Questions of the given videos; an empty list keeps all. */
export const filterByVideoIds = (
  questions: ReadonlyArray<Question>,
  videoIds: ReadonlyArray<string>
): ReadonlyArray<Question> => {
  if (videoIds.length === 0) return questions
  const wanted = new Set(videoIds.map((v) => v.trim()))
  return questions.filter((q) => wanted.has(q.videoId))
}

/** Questions with the given ids; an empty list keeps all. */
export const filterByQuestionIds = (
  questions: ReadonlyArray<Question>,
  questionIds: ReadonlyArray<string>
): ReadonlyArray<Question> => {
  if (questionIds.length === 0) return questions
  const wanted = new Set(questionIds.map((v) => v.trim()))
  return questions.filter((q) => wanted.has(q.questionId))
}

/** Questions of the given task types, compared case-insensitively; an empty list keeps all. */
export const filterByTaskTypes = (
  questions: ReadonlyArray<Question>,
  taskTypes: ReadonlyArray<string>
): ReadonlyArray<Question> => {
  if (taskTypes.length === 0) return questions
  const wanted = new Set(taskTypes.map(taskKey))
  return questions.filter((q) => wanted.has(taskKey(q.taskType)))
}

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
  let selected = questions
  if (keep(selection.videoIds)) selected = filterByVideoIds(selected, selection.videoIds)
  if (keep(selection.questionIds)) selected = filterByQuestionIds(selected, selection.questionIds)
  if (keep(selection.taskTypes)) selected = filterByTaskTypes(selected, selection.taskTypes)
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
