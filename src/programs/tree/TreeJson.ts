// tree.json bytes to a JSON value, strictly: UTF-8 that is valid, no duplicate keys, and a bounded
// nesting depth. JSON.parse accepts a duplicate key silently (the last one wins) and any depth; a
// value nested thousands deep then overflows the stack of whatever walks it (the decoder's error
// formatting did), so the depth is refused here, before anything recursive sees it.
import { Either } from "effect"
// The bundle (package.json "bundle") aliases jsonc-parser to its ESM build: the UMD main requires its
// parts through a factory argument, which esbuild cannot follow.
import { createScanner } from "jsonc-parser"
import { formatPath } from "../../domain/DecodeIssue.js"
import { TreeDecodeError } from "../../domain/Tree.js"
import { maxJsonDepth } from "../../domain/UserJson.js"

/**
 * The deepest nesting a tree.json may have. The nested form reaches about 10 levels (roots, three node
 * levels with their children lists, a card and one object inside it); 64 leaves builders room for
 * structured card fields while keeping every recursive walk far from the stack limit.
 */
export const maxTreeDepth = maxJsonDepth

// jsonc-parser's SyntaxKind is a const enum, which isolatedModules cannot read: its values, copied.
const OpenBrace = 1
const CloseBrace = 2
const OpenBracket = 3
const CloseBracket = 4
const Comma = 5
const StringLiteral = 10
const EOF = 17

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true })
const lenientUtf8 = new TextDecoder("utf-8")

/** Line and column (both from 1) of a character offset. */
const lineColumn = (text: string, offset: number): string => {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line += 1
    lineStart = i + 1
  }
  return `line ${line}, column ${offset - lineStart + 1}`
}

/**
 * Where the first invalid byte sits. A lenient decode writes U+FFFD for it; a U+FFFD the file really
 * holds (EF BF BD) is told apart by looking at the bytes at the same place.
 */
const invalidUtf8At = (bytes: Uint8Array): { readonly byte: number; readonly where: string } => {
  const text = lenientUtf8.decode(bytes)
  const encoder = new TextEncoder()
  for (let i = text.indexOf("\uFFFD"); i !== -1; i = text.indexOf("\uFFFD", i + 1)) {
    const byte = encoder.encode(text.slice(0, i)).length
    if (!(bytes[byte] === 0xef && bytes[byte + 1] === 0xbf && bytes[byte + 2] === 0xbd)) {
      return { byte, where: lineColumn(text, i) }
    }
  }
  return { byte: bytes.length, where: "at the end" }
}

/** The bytes as UTF-8 text; a leading byte-order mark is dropped, as editors write one. */
export const decodeUtf8 = (file: string, bytes: Uint8Array): Either.Either<string, TreeDecodeError> => {
  try {
    const text = fatalUtf8.decode(bytes)
    return Either.right(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch {
    const at = invalidUtf8At(bytes)
    return Either.left(TreeDecodeError.at(
      file,
      "",
      `not valid UTF-8 at byte ${at.byte} (${at.where})`,
      "save the file as UTF-8 or re-run the builder",
      "Encoding"
    ))
  }
}

type Frame =
  | { readonly kind: "object"; readonly keys: Set<string>; key: string | undefined; expectingKey: boolean }
  | { readonly kind: "array"; index: number }

const framePath = (stack: ReadonlyArray<Frame>): Array<PropertyKey> =>
  stack.flatMap((
    frame
  ): Array<PropertyKey> => (frame.kind === "array" ? [frame.index] : frame.key === undefined ? [] : [frame.key]))

// A path 64 levels deep is mostly `[0][0]…`: its head says where, the line and column the rest.
const shortPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length <= 12 ? formatPath(path) : `${formatPath(path.slice(0, 12))}…`

/**
 * Walks the tokens of text JSON.parse has accepted, with an explicit stack (never recursion): the
 * first duplicate key or container nested deeper than `maxTreeDepth`, located, if any.
 */
const structureProblem = (file: string, text: string, fixes: JsonFixes): TreeDecodeError | undefined => {
  const scanner = createScanner(text, true)
  const stack: Array<Frame> = []
  const duplicateKey = (path: ReadonlyArray<PropertyKey>, problem: string, fix: string) =>
    TreeDecodeError.at(
      file,
      formatPath(path),
      `${problem} (${lineColumn(text, scanner.getTokenOffset())})`,
      fix,
      "DuplicateKey"
    )
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    const top = stack[stack.length - 1]
    switch (token) {
      case OpenBrace:
      case OpenBracket: {
        if (stack.length >= maxTreeDepth) {
          const path = framePath(stack)
          return new TreeDecodeError({
            reason: "TooDeep",
            file,
            path: formatPath(path),
            message: `${file}: ${shortPath(path)}: nested more than ${maxTreeDepth} levels deep ` +
              `(${lineColumn(text, scanner.getTokenOffset())}) — ${fixes.depth}`
          })
        }
        stack.push(
          token === OpenBrace
            ? { kind: "object", keys: new Set(), key: undefined, expectingKey: true }
            : { kind: "array", index: 0 }
        )
        break
      }
      case CloseBrace:
      case CloseBracket:
        stack.pop()
        break
      case Comma:
        if (top?.kind === "array") top.index += 1
        else if (top?.kind === "object") top.expectingKey = true
        break
      case StringLiteral:
        if (top?.kind === "object" && top.expectingKey) {
          const key = scanner.getTokenValue()
          top.key = key
          top.expectingKey = false
          if (top.keys.has(key)) {
            return duplicateKey(
              framePath(stack),
              `duplicate key "${key}"`,
              `keep one of the two; ${fixes.fix}`
            )
          }
          top.keys.add(key)
        }
        break
    }
  }
  return undefined
}

/** JSON.parse's complaint, with the line and column of the position it names. */
const syntaxProblem = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const position = /at position (\d+)/.exec(message)
  return position === null ? message : `${message}, ${lineColumn(text, Number(position[1]))}`
}

/** What a refusal tells the user to do: tree.json's fixes by default; other strict readers say their own. */
export interface JsonFixes {
  readonly fix: string
  readonly depth: string
}

const treeFixes: JsonFixes = {
  fix: "fix the file or re-run the builder",
  depth: "a tree needs about 10; fix the file or re-run the builder"
}

/**
 * The text of tree.json as a JSON value: valid JSON, no duplicate keys, at most `maxTreeDepth` deep.
 * Other files read as strictly (caption files to import) pass their own `fixes`.
 */
export const parseTreeJson = (
  file: string,
  text: string,
  fixes: JsonFixes = treeFixes
): Either.Either<unknown, TreeDecodeError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return Either.left(
      TreeDecodeError.at(file, "", `not valid JSON (${syntaxProblem(text, error)})`, fixes.fix, "Syntax")
    )
  }
  const problem = structureProblem(file, text, fixes)
  return problem === undefined ? Either.right(json) : Either.left(problem)
}
