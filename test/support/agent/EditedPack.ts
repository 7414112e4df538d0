// Prompt packs for the error cases: a scratch copy of the packaged en pack with one thing changed, and
// the message loading a pack fails with.
import { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import { loadPromptManager, packagedPromptsDir } from "../../../src/programs/prompts/PromptPack.js"
import { scopedTempDir } from "../TempDir.js"

/** A scratch copy of the en pack (in a scoped temp folder), changed by `edit`; its path. */
export const editedPack = (edit: (fs: FileSystem.FileSystem, dir: string) => Effect.Effect<void, unknown>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(yield* scopedTempDir("edited-pack"), "pack")
    yield* fs.copy(packagedPromptsDir("en"), dir)
    yield* edit(fs, dir)
    return dir
  })

/** The message loading the pack at `dir` fails with (the effect fails if the pack loads). */
export const loadError = (dir: string) => loadPromptManager(dir).pipe(Effect.flip, Effect.map((error) => error.message))
