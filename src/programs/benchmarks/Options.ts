// Options lettered A…, and keys (letters, indices, option texts) normalised to a letter.
import { Either } from "effect"
import { type QuestionLoadError, rowError } from "../../domain/Question.js"
import { describeValue } from "./Rows.js"

export const minOptions = 2
export const maxOptions = 10

export const letterAt = (index: number): string => String.fromCharCode(65 + index)
/** The 0-based index a letter names, or -1. */
export const indexOfLetter = (letter: string): number => (/^[A-Z]$/.test(letter) ? letter.charCodeAt(0) - 65 : -1)

/**
 * The letter an unanswered question is exported with where a scorer reads letters: the first letter after
 * the question's options (E for A–D). It scores wrong, as no key can name it, yet is a letter, so a scorer
 * that takes the first character of the field still reads one. Never a real option chosen at random.
 */
export const outsideLetter = (optionCount: number): string => letterAt(optionCount)

/** Bare option texts lettered `A. …`; 2 to 10 of them, none blank. `field` names the options in the file. */
export const letterOptions = (
  texts: ReadonlyArray<string>,
  file: string,
  location: string,
  field: string,
  fix: string
): Either.Either<ReadonlyArray<string>, QuestionLoadError> => {
  if (texts.length < minOptions || texts.length > maxOptions) {
    return Either.left(
      rowError(file, location, field, `expected ${minOptions} to ${maxOptions} options, got ${texts.length}`, fix)
    )
  }
  const blank = texts.findIndex((t) => t.trim() === "")
  if (blank >= 0) {
    return Either.left(rowError(file, location, `${field}[${blank}]`, "is empty", "give every option its text"))
  }
  return Either.right(texts.map((t, i) => `${letterAt(i)}. ${t.trim()}`))
}

const optionLabel = /^\(?([A-Z])[.):]/

/**
 * Options as a hand-written file gives them: labelled `A.`, `B.`, … in order (kept), or all unlabelled
 * (lettered here); a mix, or labels out of order, is refused. 2 to 10 of them, none blank.
 */
export const labelledOptions = (
  options: ReadonlyArray<string>,
  file: string,
  location: string,
  field: string,
  fix: string
): Either.Either<ReadonlyArray<string>, QuestionLoadError> => {
  if (options.length < minOptions || options.length > maxOptions) {
    return Either.left(
      rowError(file, location, field, `expected ${minOptions} to ${maxOptions} options, got ${options.length}`, fix)
    )
  }
  const blank = options.findIndex((o) => o.trim() === "")
  if (blank >= 0) {
    return Either.left(rowError(file, location, `${field}[${blank}]`, "is empty", "give every option its text"))
  }
  const labels = options.map((o) => optionLabel.exec(o.trim())?.[1])
  if (labels.every((l) => l === undefined)) return Either.right(options.map((o, i) => `${letterAt(i)}. ${o.trim()}`))
  const wrong = labels.findIndex((l, i) => l !== letterAt(i))
  if (wrong >= 0) {
    return Either.left(rowError(
      file,
      location,
      `${field}[${wrong}]`,
      `expected to start with "${letterAt(wrong)}.", got ${describeValue(options[wrong])}`,
      "label the options A., B., C., … in order, or leave all labels out"
    ))
  }
  return Either.right(options.map((o) => o.trim()))
}

/**
 * How a benchmark writes its keys: `letter` (Video-MME, LVBench, a hand-written file: "B"), or
 * `letterOrIndex` (EgoSchema, LongVideoBench and `--answers` files, whose keys are 0-based indices).
 * Where letters are the form, a digit is refused: "1" next to options "1", "2", "3" could mean B or A.
 */
export type KeyForm = "letter" | "letterOrIndex"

/**
 * A key as benchmarks write it, normalised to a letter within `optionCount` options, or null when it names
 * none: a letter (`"b"`, `"(B)"`, `"B."`), or, where `form` allows, a 0-based index (`2`, `"2"`).
 */
export const normalizeKey = (raw: unknown, optionCount: number, form: KeyForm = "letterOrIndex"): string | null => {
  let index = -1
  if (typeof raw === "number") index = Number.isInteger(raw) && form === "letterOrIndex" ? raw : -1
  else if (typeof raw === "string") {
    const text = raw.trim()
    const letter = /^\(?([A-Za-z])\)?\.?$/.exec(text)?.[1]
    if (letter !== undefined) index = indexOfLetter(letter.toUpperCase())
    else if (/^\d+$/.test(text) && form === "letterOrIndex") index = Number(text)
  }
  return index >= 0 && index < optionCount ? letterAt(index) : null
}

/** The error for a key that names no option of its question. */
export const keyError = (
  file: string,
  location: string,
  field: string,
  raw: unknown,
  optionCount: number,
  form: KeyForm = "letterOrIndex"
): QuestionLoadError =>
  form === "letter"
    ? rowError(
      file,
      location,
      field,
      `expected an option letter ${letterAt(0)}–${letterAt(optionCount - 1)}, got ${describeValue(raw)}`,
      "write the right option's letter (this benchmark's keys are letters, not indices)"
    )
    : rowError(
      file,
      location,
      field,
      `${describeValue(raw)} names no option (the question has ${optionCount}: ${letterAt(0)}–${
        letterAt(optionCount - 1)
      }, or indices 0–${optionCount - 1})`,
      "fix the key or the options"
    )
