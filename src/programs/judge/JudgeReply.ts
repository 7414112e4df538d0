// What a judge said: its verdict and reason, read from a reply as loosely as the agent's replies are
// (think blocks lifted out, fences, the first JSON object, repaired when broken), then decoded.
import { Either, Schema } from "effect"
import type { Verdict } from "../../domain/Judgement.js"
import { candidatesOf, isRecord, stripThinking, tryParse, tryRepair } from "../agent/ReplyJson.js"

export interface JudgeReading {
  readonly verdict: Verdict
  readonly reason: string
  /** The JSON had to be repaired (jsonrepair) before it parsed. */
  readonly repaired: boolean
}

const VerdictText = Schema.transform(
  Schema.String,
  Schema.Literal("correct", "incorrect"),
  { strict: false, decode: (text) => text.trim().toLowerCase(), encode: (verdict) => verdict }
)
const JudgeJson = Schema.Struct({
  verdict: VerdictText,
  reason: Schema.optionalWith(Schema.String, { default: () => "" })
})
const decodeJudgeJson = Schema.decodeUnknownEither(JudgeJson)

/**
 * The verdict of a judge's reply, or (Left) why none could be read — a judge failure, counted apart and
 * never a crash. The first JSON object with a readable verdict wins.
 */
export const readJudgeReply = (reply: string): Either.Either<JudgeReading, string> => {
  const { text } = stripThinking(reply)
  const candidates = candidatesOf(text)
  for (const candidate of candidates) {
    const strict = tryParse(candidate.text)
    const parsed = strict.ok ? strict : tryRepair(candidate.text)
    if (!parsed.ok || !isRecord(parsed.value)) continue
    const decoded = decodeJudgeJson(parsed.value)
    if (Either.isRight(decoded)) return Either.right({ ...decoded.right, repaired: !strict.ok })
  }
  const shown = text.trim().slice(0, 80).replace(/\s+/g, " ")
  return Either.left(
    candidates.length === 0
      ? `the judge's reply held no JSON object: "${shown}"`
      : `the judge's reply held no {"verdict": "correct" | "incorrect"}: "${shown}"`
  )
}
