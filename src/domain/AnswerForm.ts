import { Schema } from "effect"

/**
 * How the agent's submitted answer read, beside the letter taken from it (domain/Answer.ts):
 * - `clean`: a bare option letter, wrapped at most in punctuation or JSON ("B", "(B)", "B.", {"answer": "B"});
 * - `extracted`: longer text, from which an option letter was read;
 * - `invalid`: text naming no option (a letter outside them, or nothing readable as one);
 * - `empty`: submitted blank;
 * - `free`: free text answering an open-ended question (one without options), judged, never read as a letter.
 */
export const answerForms = ["clean", "extracted", "invalid", "empty", "free"] as const
export const AnswerForm = Schema.Literal(...answerForms)
export type AnswerForm = typeof AnswerForm.Type
