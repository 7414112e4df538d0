/**
 * Turning a model's free-text answer into one option letter, after the official Video-MME rule:
 * strip "The best answer is"-style prefixes, then take the first standalone capital letter that
 * names an option. Three refinements over the official script, each because it scores replies
 * the official rule gets wrong:
 * - a letter right after an answer prefix wins over earlier letters ("A woman cooks. The answer
 *   is C." → C, where the official rule returns the article's A);
 * - "A" and "I" used as English words (followed by a lower-case word: "A man", "I think") are only
 *   taken when no other option letter occurs;
 * - a lower-case letter counts only when it stands alone as the whole reply or right after an
 *   answer prefix ("b", "(b).", "Answer: b"), never inside prose, where "a" is an article.
 */
import type { AnswerForm } from "./AnswerForm.js"

const maxOptions = 26

/** `["A", "B", …]` for `count` options (clamped to 0‥26). */
export const optionLetters = (count: number): ReadonlyArray<string> => {
  const n = Math.max(0, Math.min(maxOptions, Math.floor(Number.isFinite(count) ? count : 0)))
  return Array.from({ length: n }, (_, i) => String.fromCharCode(65 + i))
}

// Longest first so "The best answer is" is not cut down to "answer is" by a shorter entry.
const answerPrefixes: ReadonlyArray<string> = [
  "the best answer is",
  "the correct answer is",
  "the final answer is",
  "the best option is",
  "the correct option is",
  "the answer would be",
  "the answer is",
  "my answer is",
  "final answer:",
  "best answer:",
  "best option:",
  "correct answer:",
  "the answer:",
  "answer:",
  "answer is",
  "option",
  "最佳答案是",
  "正确答案是",
  "答案是",
  "答案：",
  "答案:",
  "选项"
]

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

// `\b` only where the prefix starts/ends with a word character: CJK prefixes have no word boundary.
const prefixPattern = new RegExp(
  answerPrefixes
    .map((p) => {
      const body = escapeRegExp(p).replace(/ /g, "\\s+")
      const start = /^[a-z]/.test(p) ? "\\b" : ""
      const end = /[a-z]$/.test(p) ? "\\b" : ""
      return `${start}${body}${end}`
    })
    .join("|"),
  "gi"
)

// A letter with no letter or digit on either side: "(B)", "B.", "**C**", "答案是B" all qualify.
const standaloneCapital = /(?<![A-Za-z0-9])([A-Z])(?![A-Za-z0-9])/g

// Punctuation a model wraps a bare letter in: quotes, brackets, markdown emphasis, a trailing dot.
const wrapper = `[\\s"'\`*_()\\[\\]{}<>:：.,;!。，、-]*`
const leadingLetter = new RegExp(`^${wrapper}([A-Za-z])(?![A-Za-z0-9])`)
const loneLetter = new RegExp(`^${wrapper}([A-Za-z])${wrapper}$`)

/**
 * `{"answer": "B"}`-style replies: the value under an answer-like key, when the reply is JSON. A lenient
 * probe of free model text (JSON.parse, any failure: "not this style"), not a decode of a format.
 */
const jsonAnswer = (reply: string): string | null => {
  const trimmed = reply.trim().replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "")
  if (!trimmed.startsWith("{")) return null
  try {
    const value: unknown = JSON.parse(trimmed)
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null
    for (const [key, v] of Object.entries(value)) {
      if (/^(final_?)?(answer|option|choice|prediction)$/i.test(key) && typeof v === "string") return v
    }
    return null
  } catch {
    return null
  }
}

const followedByWord = /\s+[a-z]/y

const isWordUse = (text: string, index: number): boolean => {
  const letter = text[index]
  if (letter !== "A" && letter !== "I") return false
  followedByWord.lastIndex = index + 1
  return followedByWord.test(text)
}

/**
 * The option letter a reply names, or null when it names none of `A‥` up to `optionCount`.
 * Pure and total: never throws, whatever the input.
 */
export const normalizeAnswer = (reply: string, optionCount: number): string | null => {
  const letters = optionLetters(optionCount)
  if (letters.length === 0 || typeof reply !== "string") return null
  const valid = (c: string | undefined): c is string => c !== undefined && letters.includes(c)

  const fromJson = jsonAnswer(reply)
  const text = (fromJson ?? reply).trim()
  if (text.length === 0) return null

  const lone = loneLetter.exec(text)?.[1]?.toUpperCase()
  if (lone !== undefined) return valid(lone) ? lone : null

  // A letter directly after the first prefix is the model's stated choice.
  prefixPattern.lastIndex = 0
  for (let m = prefixPattern.exec(text); m !== null; m = prefixPattern.exec(text)) {
    // A bounded window keeps long, prefix-heavy replies linear.
    const end = m.index + m[0].length
    const after = text.slice(end, end + 64)
    const letter = leadingLetter.exec(after)?.[1]
    const endsReply = end + 64 >= text.length
    if (letter !== undefined && (letter === letter.toUpperCase() || (endsReply && loneLetter.test(after)))) {
      const upper = letter.toUpperCase()
      if (valid(upper)) return upper
    }
  }

  const stripped = text.replace(prefixPattern, " ")
  let wordUse: string | null = null
  standaloneCapital.lastIndex = 0
  for (let m = standaloneCapital.exec(stripped); m !== null; m = standaloneCapital.exec(stripped)) {
    const letter = m[1]
    if (!valid(letter)) continue
    if (isWordUse(stripped, m.index)) {
      wordUse ??= letter
      continue
    }
    return letter
  }
  return wordUse
}

/**
 * How a submitted answer read (see AnswerForm), for `optionCount` options: a question without options is
 * open-ended, and its non-blank answer `free`. Whenever an option letter is read, it is normalizeAnswer's.
 */
export const answerFormOf = (reply: string, optionCount: number): AnswerForm => {
  if (typeof reply !== "string") return "invalid"
  const text = (jsonAnswer(reply) ?? reply).trim()
  if (text.length === 0) return "empty"
  if (optionLetters(optionCount).length === 0) return "free"
  const letter = normalizeAnswer(reply, optionCount)
  if (letter === null) return "invalid"
  return loneLetter.test(text) ? "clean" : "extracted"
}

/** A prediction row's answerText and answerForm: the submission whole and how it read; both null without one. */
export const answerTextOf = (
  answer: string | null,
  optionCount: number
): { readonly answerText: string | null; readonly answerForm: AnswerForm | null } => ({
  answerText: answer,
  answerForm: answer === null ? null : answerFormOf(answer, optionCount)
})
