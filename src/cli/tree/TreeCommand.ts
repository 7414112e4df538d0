import { Args, Command, Options } from "@effect/cli"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Option } from "effect"
import { TreeDecodeError } from "../../domain/Tree.js"
import { treePage } from "../../programs/tree/TreePage.js"
import { checkTree, listFrames, searchTree, showNode, showOutline } from "../../programs/tree/TreeReports.js"
import { countOf } from "../../text/Format.js"
import { wholeNumber, withShownDefault } from "../CliOptions.js"
import * as Media from "../shared/MediaLayers.js"
import { writeResult } from "../shared/OutputFile.js"
import { treeImportCommand } from "./TreeImportCommand.js"
import * as Tree from "./TreeLayers.js"
import { treePackCommands } from "./TreePackCommand.js"

/**
 * `vtree tree validate`: the report, then a failure when frames are missing (observe_frame would fail
 * on those nodes), unless `allowMissingFrames`.
 */
export const validateCommand = Effect.fn("TreeCommand.validateCommand")(
  function*(input: string, allowMissingFrames: boolean) {
    const { file, missing, report } = yield* checkTree(input)
    yield* Console.log(report)
    if (missing.length > 0 && !allowMissingFrames) {
      const count = `${countOf(missing.length, "frame")} missing`
      return yield* TreeDecodeError.at(
        file,
        "",
        `${count} (${missing[0]}${missing.length > 1 ? ", …" : ""}); observe_frame cannot show them`,
        "run the build again to restore them, or accept the tree with --allow-missing-frames",
        "MissingFrames"
      )
    }
  }
)

const treeArg = Args.text({ name: "tree" }).pipe(Args.withDescription("a tree directory, or its tree.json"))
// Failures stay in the error channel: bin prints their message as one line and exits 1.
const printing = <E, R>(report: Effect.Effect<string, E, R>) => Effect.flatMap(report, Console.log)

const validate = Command.make(
  "validate",
  {
    tree: treeArg,
    allowMissingFrames: Options.boolean("allow-missing-frames").pipe(
      Options.withDescription("exit 0 even when frame images of L3 nodes are missing")
    )
  },
  ({ allowMissingFrames, tree }) => validateCommand(tree, allowMissingFrames)
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
  ({ anchor, nodeId, tree }) =>
    printing(Option.match(nodeId, { onNone: () => showOutline(tree), onSome: (id) => showNode(tree, id, anchor) }))
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
  ({ k, query, tree }) => printing(searchTree(tree, query, k))
).pipe(
  Command.withDescription(
    "Retrieve the nodes best matching a query as search_similar does: BM25, or hybrid with VTREE_EMBED_* set; ancestors and descendants of kept hits are skipped."
  ),
  Command.provide(Tree.embeddings)
)

const frames = Command.make(
  "frames",
  { tree: treeArg, ids: Args.text({ name: "node-id" }).pipe(Args.atLeast(1)) },
  ({ ids, tree }) => printing(listFrames(tree, ids))
).pipe(Command.withDescription("Resolve frame files as observe_frame would: 1–4 L3 ids, or one L2 id."))

/**
 * `vtree tree html`: the page of a tree or a trees folder, to `--out` (never over or inside the trees it
 * reads: cli/shared/OutputFile.ts) or to stdout.
 */
export const writeTreePage = Effect.fn("TreeCommand.html")(function*(
  input: string,
  options: { readonly out: Option.Option<string>; readonly frames: "embed" | "link" }
) {
  const path = yield* Path.Path
  const pageDir = Option.match(options.out, {
    onNone: () => path.resolve("."),
    onSome: (out) => path.dirname(path.resolve(out))
  })
  const { page, trees } = yield* treePage(input, { mode: options.frames, pageDir })
  yield* writeResult({
    body: page,
    out: options.out,
    // A tree's folder, whichever way it was named: the page never lands in it or over its tree.json.
    inputs: [input, ...trees.map((tree) => (tree.toLowerCase().endsWith(".json") ? path.dirname(tree) : tree))],
    data: true,
    what: `the page of ${trees.length === 1 ? "tree" : `${trees.length} trees in`} ${input}`
  })
})

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
  ({ frames, out, tree }) => writeTreePage(tree, { out, frames })
).pipe(
  Command.withDescription(
    "One self-contained html page of a tree (an index for a trees folder): timeline, cards, subtitles, thumbnails, " +
      "an anchor per node id, search."
  ),
  Command.provide(Media.thumbnails)
)

export const treeCommand = Command.make("tree").pipe(
  Command.withDescription(
    "Inspect a video tree: validate, show its outline or a node, search, resolve frames, write an html page."
  ),
  Command.withSubcommands([validate, show, search, frames, html, treeImportCommand, ...treePackCommands])
)
