// The blind control's prompt (`vtree infer --control blind`): a pack's `blind.md`, the question and its options
// alone, with no tree, node id or tool in it. Optional in a pack: only a blind run reads it, and refuses to start
// without it.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Either } from "effect"
import type { QuestionKind } from "./Categories.js"
import { type PromptManager, PromptPackError } from "./PromptManager.js"
import { checkPlaceholders } from "./PromptPack.js"
import { fillPlaceholders } from "./SystemPrompt.js"

export const blindPromptFile = "blind.md"

export const blindPlaceholders = {
  required: ["question", "options"],
  optional: ["task_type", "benchmark_note"]
} as const

/** What the blind prompt is filled with: the question, its options and its kind (task type, benchmark note). */
export interface BlindQuestion extends QuestionKind {
  readonly question: string
  /** None (or empty): an open-ended question, answered in words. */
  readonly options?: ReadonlyArray<string> | undefined
}

/**
 * `template` filled for one question, as `user.md` is: a line holding an optional placeholder whose value is
 * empty is dropped. Pure.
 */
export const renderBlindPrompt = (template: string, prompts: PromptManager, question: BlindQuestion): string => {
  const { note, taskType } = prompts.hint(question)
  const optional: Record<string, string> = { task_type: taskType, benchmark_note: note }
  const empty = Object.keys(optional).filter((name) => optional[name] === "").map((name) => `{{${name}}}`)
  const kept = template.split(/\r?\n/).filter((line) => !empty.some((p) => line.includes(p))).join("\n")
  const text = fillPlaceholders(kept, {
    question: question.question.trim(),
    // No options: the pack's own note that the question is answered in words, as the agent's prompt shows it.
    options: (question.options ?? []).length === 0
      ? prompts.labels.openQuestion
      : (question.options ?? []).map((option) => option.trim()).join("\n"),
    ...optional
  })
  return text.replace(/\n{3,}/g, "\n\n").trim() + "\n"
}

/** The pack's `blind.md`, its placeholders checked; a PromptPackError naming the file and the fix otherwise. */
export const loadBlindPrompt = Effect.fn("BlindPrompt.load")(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const file = (yield* Path.Path).join(dir, blindPromptFile)
  const text = yield* fs.readFileString(file).pipe(
    Effect.mapError((error) =>
      new PromptPackError({
        reason: error._tag === "SystemError" && error.reason === "NotFound" ? "NotFound" : "Unreadable",
        path: file,
        message: error._tag === "SystemError" && error.reason === "NotFound"
          ? `${file}: missing — --control blind asks with the pack's ${blindPromptFile}; copy it from the en pack and adapt it`
          : `${file}: cannot be read (${error.message})`
      })
    )
  )
  const placeholders = checkPlaceholders(text, blindPlaceholders.required, blindPlaceholders.optional)
  if (Either.isLeft(placeholders)) {
    return yield* new PromptPackError({ reason: "Invalid", path: file, message: `${file}: ${placeholders.left}` })
  }
  return text
})
