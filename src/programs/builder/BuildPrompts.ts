import * as Path from "@effect/platform/Path"
import { Effect } from "effect"
import { readUserText, userFileCaps } from "../../domain/UserFile.js"
import { BuildError } from "./BuildError.js"

/** The builder's system prompts, read from a prompt pack folder (`build_event.md`, `build_scene.md`). */
export interface BuildPrompts {
  /** For the vision call of each event: L2 card + one L3 card per frame, as JSON. */
  readonly event: string
  /** For the text call of each scene: the L1 card, as JSON. */
  readonly scene: string
}

export const buildPromptFiles = ["build_event.md", "build_scene.md"] as const

export const loadBuildPrompts = Effect.fn("BuildPrompts.load")(function*(dir: string) {
  const path = yield* Path.Path
  const read = (name: string) => {
    const file = path.join(dir, name)
    return readUserText(file, userFileCaps.small).pipe(
      Effect.mapError((error) =>
        new BuildError({
          reason: "BadOption",
          message: error.reason === "NotFound" || error.reason === "Unreadable"
            ? `${file}: cannot be read — a prompt pack used for building needs ${name}; copy it from prompts/en and adapt it`
            : error.message
        })
      ),
      Effect.filterOrFail(
        (text) => text.trim() !== "",
        () =>
          new BuildError({
            reason: "BadOption",
            message: `${file}: empty — write the instructions for this build call`
          })
      )
    )
  }
  return {
    event: (yield* read(buildPromptFiles[0])).trim(),
    scene: (yield* read(buildPromptFiles[1])).trim()
  } satisfies BuildPrompts
})
