/**
 * `manifest.json`, the first entry of a tree pack: what vtree wrote it, the note its sender
 * added (e.g. the licence of the source captions), each tree's build record, and every file with its size
 * and sha256. Pure: the rules that decide whether an entry name may be written, and whether a manifest
 * is one unpack can trust to bound and check what follows.
 */
import { Either, Schema } from "effect"
import { firstDecodeIssue } from "../../../domain/DecodeIssue.js"
import { userFileCaps } from "../../../domain/UserFile.js"
import { terminalText } from "../../../text/TerminalText.js"
import { type PackErrorReason } from "./PackError.js"

export const manifestName = "manifest.json"
/** The cache folder inside a tree (embeddings, build checkpoints): machine-local, never packed or verified. */
export const cacheFolder = ".vtree"
/** A manifest of 100,000 frames is about 15 MiB. */
export const maxManifestBytes = 64 * 1024 * 1024

const Sha256 = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{64}$/, { message: () => "expected 64 lowercase hex digits" })
)
const Size = Schema.Number.pipe(Schema.int(), Schema.between(0, Number.MAX_SAFE_INTEGER))

export const ManifestFile = Schema.Struct({ path: Schema.String, size: Size, sha256: Sha256 })
export type ManifestFile = typeof ManifestFile.Type

export const ManifestTree = Schema.Struct({
  /** The tree's folder in the pack, as it was named under the packed trees folder. */
  folder: Schema.String,
  /** tree.json's videoID. */
  video_id: Schema.String,
  /** tree.json's `build` record; null for a tree vtree did not build. */
  build: Schema.NullOr(Schema.Unknown)
})

export const Manifest = Schema.Struct({
  format: Schema.Literal("vtree-pack"),
  format_version: Schema.Literal(1),
  vtree_version: Schema.String,
  note: Schema.NullOr(Schema.String),
  trees: Schema.Array(ManifestTree),
  files: Schema.Array(ManifestFile)
})
export type Manifest = typeof Manifest.Type

/** The bytes of manifest.json: fields in the order above, two-space indent, so equal trees give equal bytes. */
export const encodeManifest = (manifest: Manifest): Buffer =>
  Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, "utf8")

/** An entry name as a terminal may show it: control characters escaped, quoted. */
export const shownName = (name: string): string => `"${terminalText(name)}"`

/**
 * Why `name` may not be written below a folder, in words that follow "it is"/"has"; undefined when it
 * may. Names are `/`-separated and relative; nothing in them may climb, restart at a root, or hide a
 * separator (`\` is one on Windows) or a control character.
 */
export const entryNameProblem = (name: string): string | undefined => {
  if (name === "") return "an empty name"
  if (name.startsWith("/") || name.startsWith("\\") || /^[A-Za-z]:/.test(name)) return "an absolute path"

  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return "a control character in its name"
  if (name.includes("\\")) return "a backslash in its name (a path separator on Windows)"
  const parts = name.split("/")
  if (parts.includes("..")) return "a .. part, which would leave the output folder"
  if (parts.some((part) => part === "" || part === ".")) return "an empty or . part"
  return undefined
}

export interface ManifestProblem {
  readonly reason: PackErrorReason
  readonly text: string
}

const problem = (reason: PackErrorReason, text: string): ManifestProblem => ({ reason, text })

/** manifest.json's bytes decoded; the first field that is wrong, by its path. */
export const decodeManifest = (bytes: Uint8Array): Either.Either<Manifest, ManifestProblem> => {
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(bytes).toString("utf8"))
  } catch (error) {
    return Either.left(problem("Malformed", `not JSON (${error instanceof Error ? error.message : String(error)})`))
  }
  return Schema.decodeUnknownEither(Manifest, { errors: "first" })(json).pipe(
    Either.mapLeft((error) => {
      const issue = firstDecodeIssue(error)
      return problem("Malformed", `${issue.field === "" ? "" : `${issue.field}: `}${issue.message}`)
    })
  )
}

/**
 * What makes a decoded manifest unusable, checked before any file is written: names that could not be
 * written safely, a file listed twice (also when only the letter case differs: one file on macOS and
 * Windows), a file where another needs a folder, a file outside the listed trees, a tree without
 * tree.json, or more bytes in all than `maxBytes`.
 */
export const manifestProblem = (manifest: Manifest, maxBytes: number): ManifestProblem | undefined => {
  const folders = new Set<string>()
  for (const [i, tree] of manifest.trees.entries()) {
    const unsafe = entryNameProblem(tree.folder)
    if (unsafe !== undefined || tree.folder.includes("/") || tree.folder === cacheFolder) {
      return problem("Unsafe", `trees[${i}].folder ${shownName(tree.folder)} is not one plain folder name`)
    }
    if (folders.has(tree.folder)) {
      return problem("Malformed", `trees[${i}].folder ${shownName(tree.folder)} is listed twice`)
    }
    folders.add(tree.folder)
  }
  const seen = new Set<string>()
  const folderPaths = new Set<string>()
  let total = 0
  for (const [i, file] of manifest.files.entries()) {
    const at = `files[${i}].path ${shownName(file.path)}`
    const unsafe = entryNameProblem(file.path)
    if (unsafe !== undefined) return problem("Unsafe", `${at} has ${unsafe}`)
    const parts = file.path.split("/")
    if (parts.length < 2 || !folders.has(parts[0]!)) {
      return problem("Unsafe", `${at} is not inside one of the trees the manifest lists`)
    }
    if (parts[1] === cacheFolder) return problem("Unsafe", `${at} is inside a tree's cache folder ${cacheFolder}`)
    if (parts.length === 2 && parts[1]!.toLowerCase() === "tree.json" && file.size > userFileCaps.tree) {
      return problem(
        "TooLarge",
        `${at} is ${file.size} bytes, more than the ${userFileCaps.tree} vtree reads of a tree.json`
      )
    }
    const key = file.path.toLowerCase()
    if (seen.has(key)) return problem("Malformed", `${at} is listed twice (letter case aside)`)
    seen.add(key)
    for (let end = 1; end < parts.length; end++) folderPaths.add(parts.slice(0, end).join("/").toLowerCase())
    total += file.size
  }
  for (const [i, file] of manifest.files.entries()) {
    if (folderPaths.has(file.path.toLowerCase())) {
      return problem("Malformed", `files[${i}].path ${shownName(file.path)} is a file where other files need a folder`)
    }
  }
  for (const folder of folders) {
    if (!seen.has(`${folder}/tree.json`.toLowerCase())) {
      return problem("Malformed", `tree ${shownName(folder)} has no ${folder}/tree.json in files`)
    }
  }
  if (total > maxBytes) {
    return problem("TooLarge", `its files add up to ${total} bytes, more than the cap of ${maxBytes}`)
  }
  return undefined
}

/**
 * The most decompressed bytes a pack of `manifest` can take: each file rounded up to tar's 512-byte blocks,
 * plus room for its header and a long-name (pax) record, plus the end-of-archive blocks and padding that
 * tar tools add. More than this is data the manifest does not account for.
 */
export const decompressedBound = (manifest: Manifest, manifestBytes: number): number => {
  const block = (size: number) => Math.ceil(size / 512) * 512
  const perEntry = 4096
  return manifest.files.reduce((sum, file) => sum + block(file.size) + perEntry, block(manifestBytes) + perEntry) +
    64 * 1024
}
