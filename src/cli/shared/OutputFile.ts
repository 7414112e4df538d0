// Where a command's result goes: `--out FILE`, or stdout. A file is never one of the command's inputs
// (`report --out x.db` once replaced the database it read) nor any SQLite database, and it is written
// whole or not at all: a temporary file beside it, renamed over it.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Option, Schema } from "effect"
import type { StoredRunConfig } from "../../domain/RunConfig.js"
import { forTerminal, TerminalConsole } from "../TerminalConsole.js"

/** Why `--out` was refused or could not be written; the message is one line naming the file and the fix. */
export class OutputFileError extends Schema.TaggedError<OutputFileError>()("OutputFileError", {
  reason: Schema.Literal("IsInput", "IsDatabase", "NotAFile", "Unwritable"),
  message: Schema.String
}) {}

/** The first bytes of every SQLite database file. */
const sqliteHeader = "SQLite format 3\u0000"

/** `file` with symlinks resolved; a file not there yet resolves through its folder. */
const resolved = (fs: FileSystem.FileSystem, path: Path.Path, file: string) =>
  fs.realPath(file).pipe(
    Effect.orElse(() =>
      fs.realPath(path.dirname(path.resolve(file))).pipe(
        Effect.map((dir) => path.join(dir, path.basename(file))),
        Effect.orElseSucceed(() => path.resolve(file))
      )
    )
  )

/** A database's own files: SQLite keeps its write-ahead log and shared memory beside it. */
export const databaseFiles = (db: string): ReadonlyArray<string> =>
  /^postgres(ql)?:\/\//i.test(db) ? [] : [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]

const startsAsSqlite = (fs: FileSystem.FileSystem, file: string) =>
  fs.open(file, { flag: "r" }).pipe(
    Effect.flatMap((handle) => handle.readAlloc(FileSystem.Size(sqliteHeader.length))),
    Effect.map(Option.exists((bytes) => new TextDecoder().decode(bytes) === sqliteHeader)),
    Effect.scoped,
    Effect.orElseSucceed(() => false)
  )

/**
 * What a stored run was made from, which its report or export must never overwrite: its question file
 * (or folder: a file written there would join the question set) and its trees folder.
 */
export const runInputs = (
  run: { readonly config?: StoredRunConfig; readonly selection?: { readonly questionsPath: string } | null }
): ReadonlyArray<string> =>
  [run.selection?.questionsPath, run.config?.questionsPath, run.config?.treesDir].filter(
    (input): input is string => input !== undefined && input !== ""
  )

/** What an existing path that is not a regular file is, for a refusal. */
const kindOf = (type: FileSystem.File.Type): string =>
  type === "Directory"
    ? "a folder"
    : type === "FIFO"
    ? "a FIFO"
    : type === "CharacterDevice" || type === "BlockDevice"
    ? "a device"
    : type === "Socket"
    ? "a socket"
    : "something other than a file"

/**
 * Refuses `out` when it is there and is not a regular file (a device such as /dev/null, a folder, a
 * FIFO: a rename would replace it, and reading a FIFO's first bytes would block), when it resolves (symlinks followed) to one of `inputs` or lies inside one that is a
 * folder, or is an existing SQLite database; `inputs` are what the command reads (a database's
 * -wal/-shm: see `databaseFiles`; a run's questions and trees: see `runInputs`).
 */
export const checkOutputPath = Effect.fn("OutputFile.check")(function*(out: string, inputs: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const target = yield* resolved(fs, path, out)
  for (const input of inputs) {
    const source = yield* resolved(fs, path, input)
    if (source === target) {
      return yield* new OutputFileError({
        reason: "IsInput",
        message: `--out ${out}: is ${
          input === out ? "" : `${input}, `
        }one of this command's inputs — write the result to another file`
      })
    }
    const relative = path.relative(source, target)
    const isFolder = yield* fs.stat(source).pipe(
      Effect.map((info) => info.type === "Directory"),
      Effect.orElseSucceed(() => false)
    )
    if (isFolder && !relative.startsWith("..") && !path.isAbsolute(relative)) {
      return yield* new OutputFileError({
        reason: "IsInput",
        message:
          `--out ${out}: lies inside ${input}, a folder this run reads (its questions or trees) — write the result elsewhere`
      })
    }
  }
  const existing = yield* fs.stat(target).pipe(Effect.option)
  if (Option.isSome(existing) && existing.value.type !== "File") {
    return yield* new OutputFileError({
      reason: "NotAFile",
      message: `--out ${out}: is ${
        kindOf(existing.value.type)
      }, not a regular file — give a file path to write to, or leave out --out to print to stdout`
    })
  }
  if (yield* startsAsSqlite(fs, target)) {
    return yield* new OutputFileError({
      reason: "IsDatabase",
      message:
        `--out ${out}: is an SQLite database, which vtree never overwrites with a report or an export — write to another file`
    })
  }
})

/** `body` into `file`, atomically: a temporary file in the same folder, renamed over `file` once written. */
export const writeFileAtomically = Effect.fn("OutputFile.write")(function*(file: string, body: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}.tmp`
  )
  yield* fs.writeFileString(temporary, body).pipe(
    Effect.zipRight(fs.rename(temporary, file)),
    Effect.tapError(() => Effect.ignore(fs.remove(temporary))),
    Effect.mapError((error) =>
      new OutputFileError({
        reason: "Unwritable",
        message: `${file}: cannot write (${error.message}) — check the path and permissions`
      })
    )
  )
})

/**
 * A machine-readable result (json, html, csv, jsonl) on stdout: as it is when stdout is a file or a
 * pipe, rendered for the terminal when a person reads it there (it may carry data's escape sequences).
 */
export const writeStdoutData = (body: string): Effect.Effect<void, never, TerminalConsole> =>
  Effect.flatMap(
    TerminalConsole,
    ({ stdout }) =>
      stdout.write(stdout.isTTY ? `${forTerminal(body.trimEnd())}\n` : body.endsWith("\n") ? body : `${body}\n`)
  )

/**
 * Writes a command's result: to `out` (checked against `inputs`, written atomically, then one line on
 * stderr saying so), or to stdout (`data`: a machine format, kept byte for byte when piped).
 */
export const writeResult = Effect.fn("OutputFile.writeResult")(function*(options: {
  readonly body: string
  readonly out: Option.Option<string>
  readonly inputs: ReadonlyArray<string>
  readonly data: boolean
  readonly what: string
}) {
  if (Option.isNone(options.out)) {
    yield* options.data ? writeStdoutData(options.body) : Console.log(options.body.trimEnd())
    return
  }
  const file = options.out.value
  yield* checkOutputPath(file, options.inputs)
  yield* writeFileAtomically(file, options.body)
  yield* Console.error(`vtree: wrote ${options.what} to ${file}`)
})
