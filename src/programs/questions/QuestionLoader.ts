import * as FileSystem from "@effect/platform/FileSystem"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { decodeQuestions, type QuestionSource, rowError } from "./QuestionDecoder.js"

/** Read questions from a directory of `<videoID>.json` files or a Video-MME .json / .jsonl file. */
export const loadQuestions = Effect.fn("QuestionLoader.loadQuestions")(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const readFailed = (file: string) => (e: { readonly message: string }) =>
    rowError(file, null, null, `cannot be read (${e.message})`, "check the path and its permissions", "ReadFailed")
  const info = yield* fs.stat(path).pipe(
    Effect.mapError((e) =>
      e._tag === "SystemError" && e.reason === "NotFound"
        ? rowError(
          path,
          null,
          null,
          "does not exist",
          "pass --questions a directory of <videoID>.json files or a .json/.jsonl file of Video-MME rows",
          "NotFound"
        )
        : readFailed(path)(e)
    )
  )
  let source: QuestionSource
  if (info.type === "Directory") {
    const names = yield* fs.readDirectory(path).pipe(Effect.mapError(readFailed(path)))
    // Sorted so file order, and with it --n-samples, does not depend on the file system.
    const jsonNames = names.filter((n) => n.toLowerCase().endsWith(".json") && !n.startsWith(".")).sort()
    const files = yield* Effect.forEach(jsonNames, (name) => {
      const file = NodePath.join(path, name)
      return fs.readFileString(file).pipe(
        Effect.map((text) => ({ file, text })),
        Effect.mapError(readFailed(file))
      )
    })
    source = { _tag: "Directory", dir: path, files }
  } else {
    const text = yield* fs.readFileString(path).pipe(Effect.mapError(readFailed(path)))
    source = { _tag: "File", file: path, text }
  }
  return yield* decodeQuestions(source)
})
