import { Args, Command } from "@effect/cli"
import { loadedWhenRun } from "../LazyCommand.js"

const frames = Args.file({ name: "FRAME", exists: "yes" }).pipe(
  Args.withDescription("Image files (JPEG or PNG) to read, e.g. a tree's frames/*.jpg"),
  Args.atLeast(1)
)

/** `vtree ocr FRAME…`: what observe_frame's OCR would read from these frames, for tuning the engine. */
export const ocrCommand = Command.make(
  "ocr",
  { frames },
  loadedWhenRun(
    () => import("./OcrRun.js"),
    (run, args: { readonly frames: ReadonlyArray<string> }) => run.ocr(args.frames)
  )
).pipe(
  Command.withDescription(
    "Print the text the configured OCR engine (VTREE_OCR: tesseract by default, monkeyocr, off) reads in the given frames"
  )
)
