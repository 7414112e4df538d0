// What `vtree tree import` does, loaded when it runs (cli/LazyCommand.ts); its options are in TreeImportCommand.ts.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Option } from "effect"
import { TreeImportError } from "../../programs/import/ImportedVideo.js"
import { type ImportOptions, type ImportSummary, importTrees } from "../../programs/import/ImportTree.js"
import { resolvePromptsDir } from "../../programs/prompts/PromptPack.js"
import { countOf } from "../../text/Format.js"
import { terminalText } from "../../text/TerminalText.js"
import type { TreeImportArgs } from "./TreeImportCommand.js"
import * as Tree from "./TreeLayers.js"

/** The prompt of the event call (the scene call is the builder's `build_scene.md`). */
const importPromptFiles = { event: "import_event.md", scene: "build_scene.md" } as const

const loadImportPrompts = Effect.fn("TreeImportCommand.loadPrompts")(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const read = (name: string) =>
    fs.readFileString(path.join(dir, name)).pipe(
      Effect.map((text) => text.trim()),
      Effect.filterOrFail((text) => text !== "", () => "empty"),
      Effect.mapError(() =>
        new TreeImportError({
          reason: "BadOption",
          message:
            `${
              path.join(dir, name)
            }: missing or empty — a prompt pack used for importing with a model needs ${name}; ` +
            "copy it from prompts/en, or pass --cards captions"
        })
      )
    )
  return { event: yield* read(importPromptFiles.event), scene: yield* read(importPromptFiles.scene) }
})

/** `model, 19 calls, 3 reused, 9 degraded`: what wrote a tree's cards, and how many came back unusable. */
const cardsText = (s: ImportSummary): string => {
  if (s.cards !== "model") return "captions joined"
  const degraded = s.degraded.events + s.degraded.scenes
  return [
    `model, ${countOf(s.calls, "call")}`,
    ...(s.reused > 0 ? [`${s.reused} reused`] : []),
    ...(degraded > 0 ? [`${degraded} degraded`] : [])
  ].join(", ")
}

/** One line per tree, then the totals, then what the degraded cards are when there are any. */
export const renderImportSummary = (summaries: ReadonlyArray<ImportSummary>): string => {
  const lines = summaries.map((s) =>
    `${terminalText(s.treeDir)}: ${countOf(s.captions, "caption")} → ${countOf(s.scenes, "scene")}, ` +
    `${countOf(s.events, "event")} (${s.format}; cards: ${cardsText(s)}; ` +
    `frames: ${s.frames === null ? "none" : s.frames})`
  )
  const captions = summaries.reduce((total, s) => total + s.captions, 0)
  lines.push(`imported ${countOf(summaries.length, "tree")} (${countOf(captions, "caption")})`)
  const events = summaries.reduce((total, s) => total + s.degraded.events, 0)
  const scenes = summaries.reduce((total, s) => total + s.degraded.scenes, 0)
  if (events + scenes > 0) {
    lines.push(
      `degraded cards: ${countOf(events, "event")}, ${countOf(scenes, "scene")} — the model's reply could not be ` +
        "read twice; they hold its raw text, marked \"degraded\": true (a rerun reuses them: remove the tree's " +
        ".vtree/checkpoints to ask again)"
    )
  }
  return lines.join("\n")
}

/** `vtree tree import`: the caption files as trees, and a summary per video. */
export const treeImport = (args: TreeImportArgs) =>
  Effect.gen(function*() {
    const llm = yield* Tree.importModel(args.cards !== "captions")
    if (args.cards === "model" && Option.isNone(llm)) {
      return yield* new TreeImportError({
        reason: "BadOption",
        message: "--cards model: no LLM configured — set VTREE_LLM_BASE_URL and VTREE_LLM_MODEL " +
          "(VTREE_TOOL_LLM_MODEL for the card model), or pass --cards captions"
      })
    }
    const cards = Option.isSome(llm)
      ? {
        model: llm.value,
        prompts: yield* loadImportPrompts(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
      }
      : undefined
    const importOptions: ImportOptions = {
      outDir: args.out,
      eventSeconds: args.eventSeconds,
      sceneSeconds: args.sceneSeconds,
      ...(Option.isSome(args.from) ? { from: args.from.value } : {}),
      ...(Option.isSome(args.videos) ? { videosDir: args.videos.value } : {}),
      ...(Option.isSome(args.fps) ? { fps: args.fps.value } : {}),
      ...(cards === undefined ? {} : { cards }),
      ...(args.force ? { force: true } : {})
    }
    const summaries = yield* importTrees(args.input, importOptions)
    yield* Console.log(renderImportSummary(summaries))
  }).pipe(Effect.provide(Tree.importProviders(args.cards !== "captions")))
