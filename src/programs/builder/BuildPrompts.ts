import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect } from "effect"
import { readUserText, userFileCaps } from "../../domain/UserFile.js"
import { packagedPromptsDir } from "../prompts/PromptPack.js"
import { BuildError } from "./BuildError.js"

/** The builder's system prompts, read from a prompt pack folder (`build_event.md`, `build_scene.md`, `build_registry.md`). */
export interface BuildPrompts {
  /** For the vision call of each event: L2 card + one L3 card per frame, as JSON. */
  readonly event: string
  /** For the text call of each scene: the L1 card, as JSON. */
  readonly scene: string
  /** For the entity registry's text call (EntityRegistry.ts); without it a build writes no registry. */
  readonly registry?: string
}

export const buildPromptFiles = ["build_event.md", "build_scene.md"] as const
export const registryPromptFile = "build_registry.md"

export const loadBuildPrompts = Effect.fn("BuildPrompts.load")(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const read = (name: string, from: string = dir) => {
    const file = path.join(from, name)
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
  // A pack written before the registry existed still builds: it gets the packaged English instructions.
  const own = path.join(dir, registryPromptFile)
  const registryDir = (yield* fs.exists(own).pipe(Effect.orElseSucceed(() => false))) ? dir : packagedPromptsDir("en")
  return {
    event: (yield* read(buildPromptFiles[0])).trim(),
    scene: (yield* read(buildPromptFiles[1])).trim(),
    registry: (yield* read(registryPromptFile, registryDir)).trim()
  } satisfies BuildPrompts
})
