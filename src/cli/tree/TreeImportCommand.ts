/**
 * `vtree tree import FILE|DIR --out TREES`: released caption sets (LLoVi, VideoAgent, DVD, VideoRAG,
 * jsonl) → trees that `vtree infer` reads. Cards come from the tool model when one is configured
 * (`--cards auto`), else they are the captions joined, so an import runs offline.
 */
import { Args, Command, Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Option } from "effect"
import { importFormats, TreeImportError } from "../../programs/import/ImportedVideo.js"
import { type ImportOptions, type ImportSummary, importTrees } from "../../programs/import/ImportTree.js"
import { resolvePromptsDir } from "../../programs/prompts/PromptPack.js"
import { countOf } from "../../text/Format.js"
import { terminalText } from "../../text/TerminalText.js"
import { withShownDefault } from "../CliOptions.js"
import * as Tree from "./TreeLayers.js"

/** The prompt of the event call (the scene call is the builder's `build_scene.md`). */
export const importPromptFiles = { event: "import_event.md", scene: "build_scene.md" } as const

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

const positive = (name: string, description: string) => Options.float(name).pipe(Options.withDescription(description))

const options = {
  input: Args.text({ name: "captions" }).pipe(
    Args.withDescription(
      "a caption file, or a folder of them (VideoAgent's <video>_cap.json, DVD's <video>/captions.json)"
    )
  ),
  out: Options.text("out").pipe(Options.withDescription("The trees folder: one <videoID>/tree.json per video")),
  from: Options.choice("from", importFormats).pipe(
    Options.withDescription("The layout of the files; without it, read from their content"),
    Options.optional
  ),
  videos: Options.text("videos").pipe(
    Options.withDescription(
      "A folder of the source videos (<video id>.mp4 …): one frame per caption for observe_frame, and the frame rate of videoagent-memory keys"
    ),
    Options.optional
  ),
  fps: positive("fps", "Frame rate of videoagent-memory's frame-numbered keys (else probed from --videos)").pipe(
    Options.optional
  ),
  eventSeconds: positive("event-seconds", "Captions are grouped into L2 events on a grid of this many seconds").pipe(
    withShownDefault(20)
  ),
  sceneSeconds: positive("scene-seconds", "Events are grouped into L1 scenes on a grid of this many seconds").pipe(
    withShownDefault(300)
  ),
  cards: Options.choice("cards", ["auto", "model", "captions"]).pipe(
    Options.withDescription(
      "Event and scene cards: auto = the tool model when VTREE_LLM_* is set, else the captions joined; " +
        "model = require the model; captions = the captions joined, no call"
    ),
    withShownDefault("auto")
  ),
  force: Options.boolean("force").pipe(
    Options.withDescription(
      "Replace a tree vtree build made in --out (its model cards and frames); without it such a tree is refused"
    )
  ),
  prompts: Options.text("prompts").pipe(
    Options.withDescription("Prompt pack holding import_event.md and build_scene.md, or en / zh (default: en)"),
    Options.optional
  )
}

export const treeImportCommand = Command.make("import", options, (args) =>
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
  })).pipe(
    Command.withDescription(
      "Trees from released captions (llovi, videoagent, videoagent-memory, dvd, videorag, jsonl): each caption an L3 node, " +
        "grouped by time; offline unless a tool model writes the cards."
    ),
    Command.provide((args) => Tree.importProviders(args.cards !== "captions"))
  )
