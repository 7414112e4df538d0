// What a run checks about its trees before the first question: an hour into a benchmark is too late to
// learn that a video's tree is broken, and a broken tree must stop the run, not fill it with `error` rows.
import { Effect, Schema } from "effect"
import { plainNameProblem } from "../../domain/NameId.js"
import { readTreeIndex, treeFolderOf } from "./TreeLoader.js"

/** Which id is not a plain name. */
export const UnsafeIdErrorReason = Schema.Literal("QuestionId", "VideoId", "RunId")
export type UnsafeIdErrorReason = typeof UnsafeIdErrorReason.Type

/** A videoID, question id or run id that cannot be used: it would name a file outside `--trees`, or act on a terminal. */
export class UnsafeIdError extends Schema.TaggedError<UnsafeIdError>()("UnsafeIdError", {
  reason: UnsafeIdErrorReason,
  id: Schema.String,
  message: Schema.String
}) {}

/** The first question whose videoID or question id is not a plain name, as one line. */
export const checkQuestionIds = (
  questions: ReadonlyArray<{ readonly questionId: string; readonly videoId: string }>
): Effect.Effect<void, UnsafeIdError> => {
  for (const question of questions) {
    const idProblem = plainNameProblem(question.questionId)
    if (idProblem !== undefined) {
      return Effect.fail(
        new UnsafeIdError({
          reason: "QuestionId",
          id: question.questionId,
          message: `question id ${
            JSON.stringify(question.questionId)
          } ${idProblem} — ids are names, not paths: fix the question file`
        })
      )
    }
    const videoProblem = plainNameProblem(question.videoId)
    if (videoProblem !== undefined) {
      return Effect.fail(
        new UnsafeIdError({
          reason: "VideoId",
          id: question.videoId,
          message:
            `question ${JSON.stringify(question.questionId)}: videoID ${
              JSON.stringify(question.videoId)
            } ${videoProblem} — ` +
            "a videoID names one folder under --trees: fix the question file"
        })
      )
    }
  }
  return Effect.void
}

/** A run id given with --run-id, checked like the question ids: it is printed, stored and named in commands. */
export const checkRunId = (runId: string | undefined): Effect.Effect<void, UnsafeIdError> => {
  const problem = runId === undefined ? undefined : plainNameProblem(runId)
  return problem === undefined
    ? Effect.void
    : Effect.fail(
      new UnsafeIdError({
        reason: "RunId",
        id: runId!,
        message: `--run-id ${JSON.stringify(runId)} ${problem} — a run id is a plain name: pick another`
      })
    )
}

/**
 * Decodes the tree of every video the questions need, one at a time (each is dropped once checked,
 * so memory holds one tree); fails with the first TreeDecodeError, which names the file and the JSON path.
 */
export const decodeTrees = Effect.fn("TreePreflight.decodeTrees")(function*(
  treesDir: string,
  questions: ReadonlyArray<{ readonly videoId: string }>
) {
  const videos = [...new Set(questions.map((question) => question.videoId))]
  yield* Effect.forEach(videos, (video) => Effect.flatMap(treeFolderOf(treesDir, video), readTreeIndex), {
    discard: true
  })
})
