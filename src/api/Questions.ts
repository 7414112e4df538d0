/** Benchmark questions: load a file in any supported layout, select a subset. */
export { BenchmarkName, Question, QuestionLoadError } from "../domain/Question.js"
export {
  type LoadedQuestions,
  type LoadOptions,
  loadQuestions,
  loadQuestionSet
} from "../programs/questions/QuestionLoader.js"
export { type QuestionSelection, selectQuestions } from "../programs/questions/QuestionSelection.js"
