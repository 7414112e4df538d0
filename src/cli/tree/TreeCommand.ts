import { Args, Command, Options } from "@effect/cli"
import type { Option } from "effect"
import { wholeNumber, withShownDefault } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"
import { treeImportCommand } from "./TreeImportCommand.js"
import { treePackCommands } from "./TreePackCommand.js"

const treeArg = Args.text({ name: "tree" }).pipe(Args.withDescription("a tree directory, or its tree.json"))
const loadRun = () => import("./TreeRun.js")

const validate = Command.make(
  "validate",
  {
    tree: treeArg,
    allowMissingFrames: Options.boolean("allow-missing-frames").pipe(
      Options.withDescription("exit 0 even when frame images of L3 nodes are missing")
    )
  },
  loadedWhenRun(
    loadRun,
    (run, { allowMissingFrames, tree }: { readonly tree: string; readonly allowMissingFrames: boolean }) =>
      run.validate(tree, allowMissingFrames)
  )
).pipe(
  Command.withDescription(
    "Decode tree.json and check its structure; counts per level, time span, frames found and missing (exit 1 when any is missing)."
  )
)

const show = Command.make(
  "show",
  {
    tree: treeArg,
    nodeId: Args.text({ name: "node-id" }).pipe(
      Args.withDescription("the node to print; without it, the outline of scenes and events"),
      Args.optional
    ),
    anchor: Options.boolean("anchor").pipe(
      Options.withDescription("number card lines [c1]… and subtitle sentences [s1]…")
    )
  },
  loadedWhenRun(
    loadRun,
    (run, args: { readonly tree: string; readonly nodeId: Option.Option<string>; readonly anchor: boolean }) =>
      run.show(args.tree, args.nodeId, args.anchor)
  )
).pipe(
  Command.withDescription(
    "Print the outline (scenes and events with times and summaries), or a node's text, children and entity appendix."
  )
)

const search = Command.make(
  "search",
  {
    tree: treeArg,
    query: Args.text({ name: "query" }),
    k: wholeNumber("k", 1).pipe(Options.withDescription("how many nodes to return"), withShownDefault(5))
  },
  loadedWhenRun(
    loadRun,
    (run, args: { readonly tree: string; readonly query: string; readonly k: number }) =>
      run.search(args.tree, args.query, args.k)
  )
).pipe(
  Command.withDescription(
    "Retrieve the nodes best matching a query as search_similar does: BM25, or hybrid with VTREE_EMBED_* set; ancestors and descendants of kept hits are skipped."
  )
)

const frames = Command.make(
  "frames",
  { tree: treeArg, ids: Args.text({ name: "node-id" }).pipe(Args.atLeast(1)) },
  loadedWhenRun(
    loadRun,
    (run, args: { readonly tree: string; readonly ids: ReadonlyArray<string> }) => run.frames(args.tree, args.ids)
  )
).pipe(Command.withDescription("Resolve frame files as observe_frame would: 1–4 L3 ids, or one L2 id."))

const html = Command.make(
  "html",
  {
    tree: Args.text({ name: "tree" }).pipe(
      Args.withDescription("a tree directory (or its tree.json), or a trees folder holding one per video")
    ),
    // Text, not Options.file: OutputFile refuses a path that is not a regular file, in our words.
    out: Options.text("out").pipe(
      Options.withDescription("Write the page to this file instead of stdout (never inside the trees it shows)"),
      Options.optional
    ),
    frames: Options.choice("frames", ["embed", "link"]).pipe(
      Options.withDescription(
        "embed: thumbnails at most 320 px wide in the page; link: relative links to the frame files (small pages for big trees)"
      ),
      withShownDefault("embed")
    )
  },
  loadedWhenRun(
    loadRun,
    (run, args: { readonly tree: string; readonly out: Option.Option<string>; readonly frames: "embed" | "link" }) =>
      run.html(args.tree, { out: args.out, frames: args.frames })
  )
).pipe(
  Command.withDescription(
    "One self-contained html page of a tree (an index for a trees folder): timeline, cards, subtitles, thumbnails, " +
      "an anchor per node id, search."
  )
)

export const treeCommand = Command.make("tree").pipe(
  Command.withDescription(
    "Inspect a video tree: validate, show its outline or a node, search, resolve frames, write an html page."
  ),
  Command.withSubcommands([validate, show, search, frames, html, treeImportCommand, ...treePackCommands])
)
