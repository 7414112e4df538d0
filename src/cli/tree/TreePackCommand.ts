// `vtree tree pack|unpack|verify`: trees handed to someone else with proof that they are whole.
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { packTrees } from "../../programs/tree/pack/TreePack.js"
import { defaultMaxBytes, unpackTrees } from "../../programs/tree/pack/TreeUnpack.js"
import { verifyPack } from "../../programs/tree/pack/TreeVerify.js"
import { terminalText } from "../../text/TerminalText.js"
import { wholeNumber, withShownDefault } from "../CliOptions.js"

const gib = 1024 * 1024 * 1024

/** Bytes as a person reads them: 1.2 MB, 340 KB, 12 B. */
const sizeText = (bytes: number): string => {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} KB`
  return `${bytes} B`
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

const maxSize = wholeNumber("max-size-gib", 1).pipe(
  Options.withDescription(
    "refuse a pack whose files add up to more than this many GiB (a gzip bomb fills no disk)"
  ),
  withShownDefault(defaultMaxBytes / gib)
)

const pack = Command.make(
  "pack",
  {
    trees: Args.directory({ name: "trees" }).pipe(Args.withDescription("the folder holding one tree folder per video")),
    videoIds: Args.text({ name: "video-id" }).pipe(
      Args.withDescription("the trees to pack; every tree in TREES when none is given"),
      Args.repeated
    ),
    out: Options.file("out").pipe(Options.withDescription("the pack to write, e.g. trees.tar.gz")),
    note: Options.text("note").pipe(
      Options.withDescription("kept in the manifest: where the trees come from, the licence of their captions"),
      Options.optional
    )
  },
  ({ note, out, trees, videoIds }) =>
    Effect.gen(function*() {
      const packed = yield* packTrees({ trees, videoIds, out, note: Option.getOrNull(note) })
      yield* Console.log(
        `packed ${count(packed.trees.length, "tree", "trees")} (${terminalText(packed.trees.join(", "))}), ` +
          `${count(packed.files, "file", "files")}, ${sizeText(packed.bytes)} → ${packed.file} (${
            sizeText(packed.packedBytes)
          })`
      )
    })
).pipe(
  Command.withDescription(
    "Write trees to one .tar.gz, manifest.json first (vtree version, build records, the note, each file's size and " +
      "sha256); the same trees give the same bytes."
  )
)

const unpack = Command.make(
  "unpack",
  {
    file: Args.file({ name: "file" }).pipe(Args.withDescription("a pack written by vtree tree pack")),
    out: Options.directory("out").pipe(
      Options.withDescription("a new or empty folder; it becomes a trees folder (pass it as --trees)")
    ),
    replace: Options.boolean("replace").pipe(
      Options.withDescription(
        "replace --out when it holds an earlier unpack and nothing else (never a folder or file of anyone else)"
      )
    ),
    maxSize
  },
  ({ file, maxSize, out, replace }) =>
    Effect.gen(function*() {
      const unpacked = yield* unpackTrees({ file, out, replace, maxBytes: maxSize * gib })
      yield* Console.log(
        `unpacked ${count(unpacked.trees.length, "tree", "trees")} (${terminalText(unpacked.trees.join(", "))}), ` +
          `${count(unpacked.files, "file", "files")}, ${
            sizeText(unpacked.bytes)
          } → ${unpacked.dir}; every sha256 matches`
      )
      if (unpacked.note !== null) yield* Console.log(`note: ${terminalText(unpacked.note)}`)
    })
).pipe(
  Command.withDescription(
    "Unpack into a new folder, checking each entry's size and sha256; refuses paths outside it, links, devices " +
      "and unlisted files, and leaves nothing on failure."
  )
)

const verify = Command.make(
  "verify",
  {
    input: Args.path({ name: "pack-or-folder" }).pipe(
      Args.withDescription("a pack file, or a folder vtree tree unpack wrote")
    ),
    maxSize
  },
  ({ input, maxSize }) =>
    Effect.gen(function*() {
      const checked = yield* verifyPack(input, { maxBytes: maxSize * gib })
      yield* Console.log(
        `ok: ${count(checked.trees, "tree", "trees")}, ${count(checked.files, "file", "files")}, ${
          sizeText(checked.bytes)
        } match the manifest`
      )
    })
).pipe(
  Command.withDescription(
    "Check a pack or an unpacked folder against its manifest: the first file missing, extra, or of another size " +
      "or sha256 (exit 1); ok otherwise."
  )
)

export const treePackCommands = [pack, unpack, verify] as const
