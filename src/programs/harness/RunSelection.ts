// A run is its question set, so its accuracy means one thing whoever resumes it: which file the questions
// came from (by content, not only by path) and which filters picked them. `--resume` asks the stored set
// or refuses.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import type { Question } from "../../domain/Question.js"
import { type RunSelection } from "../../domain/RunRecord.js"
import { countOf } from "../../text/Format.js"

/** What the caller knows about a selection; the question count and the ids' hash come from the questions. */
export type SelectionInput = Omit<RunSelection, "count" | "idsSha256">

/** sha256 of the selected ids in order: the set, and its order, as the run asks it. */
export const idsSha256 = (questions: ReadonlyArray<Question>): string => {
  const hash = createHash("sha256")
  for (const question of questions) hash.update(question.questionId).update("\n")
  return hash.digest("hex")
}

export const completeSelection = (input: SelectionInput, questions: ReadonlyArray<Question>): RunSelection => ({
  ...input,
  count: questions.length,
  idsSha256: idsSha256(questions)
})

const listText = (values: ReadonlyArray<string> | null): string => (values === null ? "(none)" : values.join(","))
const sameList = (a: ReadonlyArray<string> | null, b: ReadonlyArray<string> | null): boolean =>
  listText(a) === listText(b)

/**
 * Why `given` is not the run's stored selection, as one phrase naming the first difference, or
 * undefined when they are the same question set.
 */
export const selectionDifference = (stored: RunSelection, given: RunSelection): string | undefined => {
  if (stored.questionsPath !== given.questionsPath) {
    return `--questions ${given.questionsPath} differs from the run's ${stored.questionsPath}`
  }
  if (stored.questionsSha256 !== given.questionsSha256) {
    return `${given.questionsPath} changed since the run started (its content hash differs)`
  }
  if (!sameList(stored.videoIds, given.videoIds)) {
    return `--video-ids ${listText(given.videoIds)} differs from the run's ${listText(stored.videoIds)}`
  }
  if (!sameList(stored.questionIds, given.questionIds)) {
    return `--question-ids ${listText(given.questionIds)} differs from the run's ${listText(stored.questionIds)}`
  }
  if (!sameList(stored.taskTypes, given.taskTypes)) {
    return `--task-types ${listText(given.taskTypes)} differs from the run's ${listText(stored.taskTypes)}`
  }
  if (stored.nSamples !== given.nSamples) {
    return `--n-samples ${given.nSamples ?? "(none)"} differs from the run's ${stored.nSamples ?? "(none)"}`
  }
  if (stored.count !== given.count || stored.idsSha256 !== given.idsSha256) {
    return `the filters now select ${countOf(given.count, "question")} where the run has ${stored.count}`
  }
  return undefined
}

/**
 * sha256 of a question file, or of a folder's `.json` files (names and contents, by name): the
 * files loadQuestions reads. Fails with the platform's error when the path cannot be read.
 */
export const questionsSha256 = Effect.fn("RunSelection.questionsSha256")(function*(questionsPath: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const hash = createHash("sha256")
  const info = yield* fs.stat(questionsPath)
  if (info.type === "Directory") {
    const names = (yield* fs.readDirectory(questionsPath))
      .filter((n) => n.toLowerCase().endsWith(".json") && !n.startsWith("."))
      .sort()
    for (const name of names) {
      hash.update(name).update("\u0000").update(yield* fs.readFile(path.join(questionsPath, name))).update("\u0000")
    }
  } else {
    hash.update(yield* fs.readFile(questionsPath))
  }
  return hash.digest("hex")
})
