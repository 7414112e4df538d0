// JSON from a user's file (questions, prices, prompt labels, trees, benchmark files): one reader, one depth
// limit. JSON.parse accepts any depth; a value nested thousands deep then overflows the stack of whatever
// walks it — the Schema decoder's error formatting did, and `vtree infer` ended in "internal error:
// Maximum call stack size exceeded". The depth is counted first, without recursion, and refused in one line.
import { Either, type ParseResult, Schema } from "effect"
import { firstDecodeIssue, issueLine } from "./DecodeIssue.js"

/**
 * The deepest nesting vtree reads in any JSON file. A tree's nested form reaches about 10 levels, a
 * question row 3; 64 leaves room for structured fields while keeping every recursive walk far from the stack limit.
 */
export const maxJsonDepth = 64

/** Why a user's JSON was refused: the file cannot be read, is not JSON, nests too deep, or does not match. */
export const UserJsonErrorReason = Schema.Literal("Unreadable", "Syntax", "TooDeep", "Invalid")
export type UserJsonErrorReason = typeof UserJsonErrorReason.Type

/** A user's JSON file that cannot be used; the message is one line naming the file, the place and the fix. */
export class UserJsonError extends Schema.TaggedError<UserJsonError>()("UserJsonError", {
  reason: UserJsonErrorReason,
  file: Schema.String,
  message: Schema.String
}) {}

/** Line and column (both from 1) of a character offset. */
export const lineColumn = (text: string, offset: number): string => {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line += 1
    lineStart = i + 1
  }
  return `line ${line}, column ${offset - lineStart + 1}`
}

/**
 * Where `text` first opens a container nested more than `limit` deep (a character offset), or undefined.
 * Brackets inside strings do not count. One pass, no recursion, whatever the text holds.
 */
export const tooDeepAt = (text: string, limit: number = maxJsonDepth): number | undefined => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 0x5c) i += 1 // a backslash: the next character is escaped
      else if (char === 0x22) inString = false
    } else if (char === 0x22) {
      inString = true
    } else if (char === 0x7b || char === 0x5b) {
      depth += 1
      if (depth > limit) return i
    } else if (char === 0x7d || char === 0x5d) {
      depth -= 1
    }
  }
  return undefined
}

/** The one line for a file nested too deep; `where` locates it (`line 4`, or a line and column). */
export const tooDeepMessage = (file: string, where: string): string =>
  `${file}: nested more than ${maxJsonDepth} levels deep (${where}) — vtree reads JSON at most ${maxJsonDepth} deep; fix the file`

const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)

/** The text as a JSON value: at most `maxJsonDepth` deep, then valid JSON (a leading byte-order mark is dropped). */
export const parseUserJson = (file: string, text: string): Either.Either<unknown, UserJsonError> => {
  const body = withoutBom(text)
  const deep = tooDeepAt(body)
  if (deep !== undefined) {
    return Either.left(
      new UserJsonError({ reason: "TooDeep", file, message: tooDeepMessage(file, lineColumn(body, deep)) })
    )
  }
  try {
    return Either.right(JSON.parse(body) as unknown)
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error)
    return Either.left(
      new UserJsonError({ reason: "Syntax", file, message: `${file}: not valid JSON (${why}) — fix the file` })
    )
  }
}

/**
 * The text decoded with `schema`; the error names the file and the first failing field
 * (`file: field: problem — fix`). `fix` says what the file should hold.
 */
export const decodeUserJson = <A, I>(
  schema: Schema.Schema<A, I, never>,
  file: string,
  text: string,
  fix = "fix the file"
): Either.Either<A, UserJsonError> =>
  Either.flatMap(parseUserJson(file, text), (json) =>
    Either.mapLeft(
      Schema.decodeUnknownEither(schema, { errors: "first" })(json),
      (error: ParseResult.ParseError) =>
        new UserJsonError({
          reason: "Invalid",
          file,
          message: `${file}: ${issueLine(firstDecodeIssue(error))} — ${fix}`
        })
    ))
