// What `vtree tree pack|unpack|verify` do, loaded when they run (cli/LazyCommand.ts); their options are in
// TreePackCommand.ts.
import { Console, Effect, Option } from "effect"
import { packTrees } from "../../programs/tree/pack/TreePack.js"
import { unpackTrees } from "../../programs/tree/pack/TreeUnpack.js"
import { verifyPack } from "../../programs/tree/pack/TreeVerify.js"
import { terminalText } from "../../text/TerminalText.js"

const gib = 1024 * 1024 * 1024

/** Bytes as a person reads them: 1.2 MB, 340 KB, 12 B. */
const sizeText = (bytes: number): string => {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} KB`
  return `${bytes} B`
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

export const pack = (
  { note, out, trees, videoIds }: {
    readonly trees: string
    readonly videoIds: ReadonlyArray<string>
    readonly out: string
    readonly note: Option.Option<string>
  }
) =>
  Effect.gen(function*() {
    const packed = yield* packTrees({ trees, videoIds, out, note: Option.getOrNull(note) })
    yield* Console.log(
      `packed ${count(packed.trees.length, "tree", "trees")} (${terminalText(packed.trees.join(", "))}), ` +
        `${count(packed.files, "file", "files")}, ${sizeText(packed.bytes)} → ${packed.file} (${
          sizeText(packed.packedBytes)
        })`
    )
  })

export const unpack = (
  { file, maxSize, out, replace }: {
    readonly file: string
    readonly out: string
    readonly replace: boolean
    readonly maxSize: number
  }
) =>
  Effect.gen(function*() {
    const unpacked = yield* unpackTrees({ file, out, replace, maxBytes: maxSize * gib })
    yield* Console.log(
      `unpacked ${count(unpacked.trees.length, "tree", "trees")} (${terminalText(unpacked.trees.join(", "))}), ` +
        `${count(unpacked.files, "file", "files")}, ${sizeText(unpacked.bytes)} → ${unpacked.dir}; every sha256 matches`
    )
    if (unpacked.note !== null) yield* Console.log(`note: ${terminalText(unpacked.note)}`)
  })

export const verify = ({ input, maxSize }: { readonly input: string; readonly maxSize: number }) =>
  Effect.gen(function*() {
    const checked = yield* verifyPack(input, { maxBytes: maxSize * gib })
    yield* Console.log(
      `ok: ${count(checked.trees, "tree", "trees")}, ${count(checked.files, "file", "files")}, ${
        sizeText(checked.bytes)
      } match the manifest`
    )
  })
