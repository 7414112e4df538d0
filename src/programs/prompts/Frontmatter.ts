/**
 * The YAML header of a skill file, between `---` fences, read by the `yaml` package. Only a mapping is
 * accepted; what each key must hold is the reader's Schema (Skills.ts), so a half-understood header
 * fails with the line or the field instead of silently changing which skills an agent sees.
 */
import { Either } from "effect"
import { parseDocument } from "yaml"

export interface Frontmatter {
  /** The header's keys; a key written with no value (or `null`, `~`) is absent. */
  readonly data: Readonly<Record<string, unknown>>
  /** The text after the closing `---`, or the whole text when there is no frontmatter. */
  readonly body: string
}

const fence = /^---[ \t]*$/

/** Parses `text`; on failure the Left is a one-line message (without the file name) saying what to fix. */
export const parseFrontmatter = (text: string): Either.Either<Frontmatter, string> => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  if (!fence.test(lines[0]!)) return Either.right({ data: {}, body: lines.join("\n") })
  const close = lines.findIndex((line, i) => i > 0 && fence.test(line))
  if (close === -1) {
    return Either.left("frontmatter opened with '---' on line 1 is never closed — add a '---' line after the header")
  }
  const document = parseDocument(lines.slice(1, close).join("\n"))
  const error = document.errors[0]
  if (error !== undefined) {
    // The header starts on the file's second line; yaml's message ends with its own position.
    const line = (error.linePos?.[0].line ?? 0) + 1
    const what = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")
    return Either.left(`line ${line}: ${what} — write the header as YAML 'key: value' lines`)
  }
  const value: unknown = document.toJS()
  if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
    return Either.left("the header is not a set of 'key: value' lines — write one key per line")
  }
  const data = Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== null && v !== undefined))
  const body = lines.slice(close + 1).join("\n").replace(/^\s*\n/, "")
  return Either.right({ data, body })
}
