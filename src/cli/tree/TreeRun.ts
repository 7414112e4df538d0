// What `vtree tree …` does, loaded when a tree command runs (cli/LazyCommand.ts); the commands' options
// are in TreeCommand.ts.
import * as Path from "@effect/platform/Path"
import { Console, Effect, Option } from "effect"
import { TreeDecodeError } from "../../domain/Tree.js"
import { treePage } from "../../programs/tree/TreePage.js"
import { checkTree, listFrames, searchTree, showNode, showOutline } from "../../programs/tree/TreeReports.js"
import { countOf } from "../../text/Format.js"
import * as Media from "../shared/MediaLayers.js"
import { writeResult } from "../shared/OutputFile.js"
import * as Tree from "./TreeLayers.js"

/**
 * `vtree tree validate`: the report, then a failure when frames are missing (observe_frame would fail
 * on those nodes), unless `allowMissingFrames`.
 */
export const validate = Effect.fn("TreeCommand.validateCommand")(
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

// Failures stay in the error channel: bin prints their message as one line and exits 1.
const printing = <E, R>(report: Effect.Effect<string, E, R>) => Effect.flatMap(report, Console.log)

/** `vtree tree show`: the outline, or one node. */
export const show = (tree: string, nodeId: Option.Option<string>, anchor: boolean) =>
  printing(Option.match(nodeId, { onNone: () => showOutline(tree), onSome: (id) => showNode(tree, id, anchor) }))

/** `vtree tree search`: the nodes search_similar would return. */
export const search = (tree: string, query: string, k: number) =>
  printing(searchTree(tree, query, k)).pipe(Effect.provide(Tree.embeddings))

/** `vtree tree frames`: frame files as observe_frame resolves them. */
export const frames = (tree: string, ids: ReadonlyArray<string>) => printing(listFrames(tree, ids))

/**
 * `vtree tree html`: the page of a tree or a trees folder, to `--out` (never over or inside the trees it
 * reads: cli/shared/OutputFile.ts) or to stdout.
 */
const writeTreePage = Effect.fn("TreeCommand.html")(function*(
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

export const html = (
  tree: string,
  options: { readonly out: Option.Option<string>; readonly frames: "embed" | "link" }
) => writeTreePage(tree, options).pipe(Effect.provide(Media.thumbnails))
