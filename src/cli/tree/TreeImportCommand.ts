/**
 * `vtree tree import FILE|DIR --out TREES`: released caption sets (LLoVi, VideoAgent, DVD, VideoRAG,
 * jsonl) → trees that `vtree infer` reads. Cards come from the tool model when one is configured
 * (`--cards auto`), else they are the captions joined, so an import runs offline.
 */
import { Args, Command, Options } from "@effect/cli"
import { importFormats } from "../../programs/import/ImportedVideo.js"
import { withShownDefault } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

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

export type TreeImportArgs = Command.Command.ParseConfig<typeof options>

export const treeImportCommand = Command.make(
  "import",
  options,
  loadedWhenRun(() => import("./TreeImportRun.js"), (run, args: TreeImportArgs) => run.treeImport(args))
).pipe(
  Command.withDescription(
    "Trees from released captions (llovi, videoagent, videoagent-memory, dvd, videorag, jsonl): each caption an L3 node, " +
      "grouped by time; offline unless a tool model writes the cards."
  )
)
