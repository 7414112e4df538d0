// `vtree tree pack|unpack|verify`: trees handed to someone else with proof that they are whole.
import { Args, Command, Options } from "@effect/cli"
import { defaultMaxBytes } from "../../programs/tree/pack/PackLimits.js"
import { wholeNumber, withShownDefault } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"
import type * as PackRun from "./TreePackRun.js"

const gib = 1024 * 1024 * 1024
const loadRun = () => import("./TreePackRun.js")

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
  loadedWhenRun(loadRun, (run, args: Parameters<typeof PackRun.pack>[0]) => run.pack(args))
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
  loadedWhenRun(loadRun, (run, args: Parameters<typeof PackRun.unpack>[0]) => run.unpack(args))
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
  loadedWhenRun(loadRun, (run, args: Parameters<typeof PackRun.verify>[0]) => run.verify(args))
).pipe(
  Command.withDescription(
    "Check a pack or an unpacked folder against its manifest: the first file missing, extra, or of another size " +
      "or sha256 (exit 1); ok otherwise."
  )
)

export const treePackCommands = [pack, unpack, verify] as const
