// The judge prompt of a prompt pack (`judge.md`): read once, hashed (the hash is part of every cache key,
// so an edited prompt judges afresh), filled per answer.
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import { join } from "node:path"
import { readUserText, userFileCaps } from "../../domain/UserFile.js"

export const judgePromptFile = "judge.md"
/** What `judge.md` must hold: the question, the reference answer and the answer to judge. */
export const judgePlaceholders = ["{{question}}", "{{reference}}", "{{answer}}"] as const

export class JudgePromptError extends Schema.TaggedError<JudgePromptError>()("JudgePromptError", {
  reason: Schema.Literal("Unreadable", "Invalid"),
  message: Schema.String
}) {}

export interface JudgePrompt {
  readonly template: string
  /** sha256 of the template, hex. */
  readonly hash: string
}

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** A template as a prompt, or the problem in words (the placeholders it lacks). */
export const judgePromptOf = (template: string): JudgePrompt | string => {
  const missing = judgePlaceholders.filter((placeholder) => !template.includes(placeholder))
  return missing.length > 0 ? `lacks ${missing.join(", ")}` : { template, hash: sha256(template) }
}

export const loadJudgePrompt = Effect.fn("JudgePrompt.load")(function*(dir: string) {
  const file = join(dir, judgePromptFile)
  const text = yield* readUserText(file, userFileCaps.small).pipe(
    Effect.mapError((error) =>
      new JudgePromptError({
        reason: "Unreadable",
        message: error.reason === "NotFound" || error.reason === "Unreadable"
          ? `${file}: cannot be read — a prompt pack used for judging needs ${judgePromptFile}; copy it from prompts/en and adapt it`
          : error.message
      })
    )
  )
  const prompt = judgePromptOf(text.trim())
  if (typeof prompt === "string") {
    return yield* new JudgePromptError({
      reason: "Invalid",
      message: `${file}: ${prompt} — write each where the judge should read it`
    })
  }
  return prompt
})

/** The prompt for one answer: each placeholder replaced once, the values taken as they are. */
export const fillJudgePrompt = (
  prompt: JudgePrompt,
  values: { readonly question: string; readonly reference: string; readonly answer: string }
): string =>
  prompt.template.replace(/\{\{(question|reference|answer)\}\}/g, (_, key: keyof typeof values) => values[key])

/**
 * The cache key of one judgement: sha256 of the question, the answer, the reference, the judge model and
 * the judge prompt's hash, so the same thing asked of the same judge is never paid for twice.
 */
export const judgementKey = (input: {
  readonly question: string
  readonly answer: string
  readonly reference: string
  readonly judgeModel: string
  readonly promptHash: string
}): string =>
  sha256(JSON.stringify([input.question, input.answer, input.reference, input.judgeModel, input.promptHash]))
