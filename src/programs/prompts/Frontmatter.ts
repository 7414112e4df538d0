/**
 * A deliberately small, strict reader for the frontmatter of skill files: flat `key: value` lines,
 * `true`/`false`, and single- or double-quoted strings. Anything richer (lists, nesting, multi-line
 * scalars) is rejected with the line number, because a half-understood header would silently change
 * which skills an agent sees.
 */
import { Either } from "effect"

export type FrontmatterValue = string | boolean

export interface Frontmatter {
  /** Keys in file order; a key written with no value is absent. */
  readonly data: Readonly<Record<string, FrontmatterValue>>
  /** The text after the closing `---`, or the whole text when there is no frontmatter. */
  readonly body: string
}

const fence = /^---[ \t]*$/
const keyLine = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/

/** Parses `text`; on failure the Left is a one-line message (without the file name) saying what to fix. */
export const parseFrontmatter = (text: string): Either.Either<Frontmatter, string> => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  if (lines.length === 0 || !fence.test(lines[0]!)) {
    return Either.right({ data: {}, body: lines.join("\n") })
  }
  const close = lines.findIndex((line, i) => i > 0 && fence.test(line))
  if (close === -1) {
    return Either.left("frontmatter opened with '---' on line 1 is never closed — add a '---' line after the header")
  }
  const data: Record<string, FrontmatterValue> = {}
  for (let i = 1; i < close; i++) {
    const line = lines[i]!
    const lineNo = i + 1
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue
    if (/^[ \t]/.test(line)) {
      return Either.left(`line ${lineNo}: indented lines are not supported — write flat 'key: value' lines`)
    }
    const match = keyLine.exec(line)
    if (match === null) {
      return Either.left(`line ${lineNo}: expected 'key: value', got ${JSON.stringify(line)}`)
    }
    const key = match[1]!
    if (Object.prototype.hasOwnProperty.call(data, key)) {
      return Either.left(`line ${lineNo}: key '${key}' is repeated — keep one`)
    }
    const value = parseScalar(match[2] ?? "")
    if (Either.isLeft(value)) return Either.left(`line ${lineNo}: ${key}: ${value.left}`)
    if (value.right !== undefined) data[key] = value.right
  }
  const body = lines.slice(close + 1).join("\n").replace(/^\s*\n/, "")
  return Either.right({ data, body })
}

const parseScalar = (raw: string): Either.Either<FrontmatterValue | undefined, string> => {
  const value = raw.trim()
  if (value.startsWith("\"")) {
    const end = closingDoubleQuote(value)
    if (end === -1) return Either.left("unterminated double-quoted string")
    if (!isTrailingComment(value.slice(end + 1))) return Either.left("unexpected text after the closing quote")
    try {
      return Either.right(JSON.parse(value.slice(0, end + 1)) as string)
    } catch {
      return Either.left("invalid escape in double-quoted string")
    }
  }
  if (value.startsWith("'")) {
    // YAML single quotes escape a quote by doubling it and have no other escapes.
    let out = ""
    for (let i = 1; i < value.length; i++) {
      const c = value[i]!
      if (c !== "'") {
        out += c
        continue
      }
      if (value[i + 1] === "'") {
        out += "'"
        i++
        continue
      }
      if (!isTrailingComment(value.slice(i + 1))) return Either.left("unexpected text after the closing quote")
      return Either.right(out)
    }
    return Either.left("unterminated single-quoted string")
  }
  const plain = value.startsWith("#") ? "" : stripComment(value)
  if (plain === "" || plain === "~" || plain === "null") return Either.right(undefined)
  if (plain === "true") return Either.right(true)
  if (plain === "false") return Either.right(false)
  if (/^[[{|>&*!%@`]/.test(plain)) {
    return Either.left(`${JSON.stringify(plain)} uses YAML syntax this reader does not support — quote the value`)
  }
  return Either.right(plain)
}

const closingDoubleQuote = (value: string): number => {
  for (let i = 1; i < value.length; i++) {
    if (value[i] === "\\") i++
    else if (value[i] === "\"") return i
  }
  return -1
}

const isTrailingComment = (rest: string): boolean => rest.trim() === "" || /^[ \t]+#/.test(rest)

// In YAML a plain scalar ends where " #" starts a comment; a '#' inside a word is kept.
const stripComment = (value: string): string => {
  const at = value.search(/[ \t]#/)
  return (at === -1 ? value : value.slice(0, at)).trim()
}
