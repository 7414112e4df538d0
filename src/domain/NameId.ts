/**
 * Ids made from names, and ids that become paths. One rule for both sides: `vtree build` turns a file
 * name into a video id with `idFromName` (the tree goes to `<out>/<id>/`), and whatever reads an id from
 * data (a question's videoID, a question id, a run id) checks it with `plainNameProblem`. Every id
 * `idFromName` gives passes that check (a property test holds it to that).
 */
import { createHash } from "node:crypto"

/** Longest id in UTF-8 bytes: a file name may hold 255, and a tree folder's files add their own parts. */
export const maxIdBytes = 200

/**
 * Marks an id whose name had to change. It is outside the characters a clean id keeps, so a changed
 * name can never come out equal to another name kept as it is.
 */
export const hashMark = "~"

const hashLength = 8

// Letters (with their combining marks, which Indic and other scripts need) and digits, "-" and "_"
// (real ids such as YouTube's hold them, even first). "." is kept inside a name only.
const keptChar = /[\p{L}\p{M}\p{N}_-]/u
const letterOrDigit = /[\p{L}\p{N}]/u

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8")

const shortHash = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, hashLength)

/** The longest prefix of `text` (whole code points) that fits in `bytes` UTF-8 bytes. */
const fitBytes = (text: string, bytes: number): string => {
  let used = 0
  let end = 0
  for (const char of text) {
    used += utf8Bytes(char)
    if (used > bytes) break
    end += char.length
  }
  return text.slice(0, end)
}

/**
 * The id a name gives, or why it gives none (a phrase to follow the name). The name is taken in NFC;
 * letters, digits, marks, "-" and "_" are kept, and "." inside the name; every run of anything else
 * (spaces, punctuation, control and format characters, separators, a leading or trailing ".") becomes
 * one "-". When any character had to change, or the id would pass `maxIdBytes`, `~` and 8 hex digits of
 * the NFC name's SHA-256 are appended, so two different names never share an id. A name without a
 * single letter or digit (``, `.`, `..`, `---`) gives none.
 */
export const idFromName = (name: string): { readonly id: string } | { readonly problem: string } => {
  const nfc = name.normalize("NFC")
  if (!letterOrDigit.test(nfc)) return { problem: "has no letter or digit to make an id from" }
  const chars = [...nfc]
  const kept = chars.map((char, i) => keptChar.test(char) || (char === "." && i > 0 && i < chars.length - 1))
  let mapped = ""
  kept.forEach((keep, i) => {
    if (keep) mapped += chars[i]
    else if (i === 0 || kept[i - 1]) mapped += "-"
  })
  const changed = kept.includes(false)
  if (!changed && utf8Bytes(mapped) <= maxIdBytes) return { id: mapped }
  // The "-" standing for changed characters at either end says nothing (the hash keeps the id apart),
  // and a "." that trimming left first or last would hide the folder or end the name.
  const trimmed = mapped.slice(kept[0] ? 0 : 1, mapped.length - (kept[kept.length - 1] ? 0 : 1)).replace(
    /^\.+|\.+$/g,
    ""
  )
  const suffix = `${hashMark}${shortHash(nfc)}`
  return { id: `${fitBytes(trimmed, maxIdBytes - utf8Bytes(suffix))}${suffix}` }
}

/** The file name without its extension (a leading "." does not start one), as `idFromName` takes it. */
export const fileStem = (file: string): string => {
  const base = file.split(/[\\/]/).pop() ?? file
  const dot = base.lastIndexOf(".")
  return dot > 0 ? base.slice(0, dot) : base
}

/** The video id of a video file: its name without the extension, through `idFromName`. */
export const videoIdFromFile = (file: string) => idFromName(fileStem(file))

// C0 and C1 control characters and DEL (a terminal acts on ESC, BEL, …), and the bidirectional
// embeddings, overrides and isolates, which reorder how the text around them is shown.
const controlOrBidi = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u

/**
 * Why an id read from data cannot name a file or be shown as it is, or undefined. Ids are data: a
 * videoID becomes one folder under `--trees`, so a separator, `.`/`..` or a NUL would let a question
 * file read from anywhere, and a control character would act on the terminal it is printed to.
 */
export const plainNameProblem = (id: string): string | undefined => {
  if (id.trim() === "") return "is empty"
  if (id.includes("\0")) return "contains a NUL byte"
  if (id.includes("/") || id.includes("\\")) return "contains a path separator"
  if (id === "." || id === "..") return "names a directory, not a video"
  const control = controlOrBidi.exec(id)
  if (control !== null) {
    return `contains the control character U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`
  }
  return undefined
}

/**
 * Longest node id in UTF-8 bytes: room for a video id (`maxIdBytes`) and the node's own part
 * (`_L1_000_L2_000_L3_000`, or an import's `_<scene>_<event>`).
 */
export const maxNodeIdBytes = 2 * maxIdBytes

/**
 * Why a node id read from tree.json is not a plain name, or undefined. A frame node without `frame_path`
 * is read from `frames/<id without "<videoID>_">.jpg`, so a node id names a file just as a video id does,
 * and the same rule holds it inside its tree's folder; the bound keeps that file name one a disk accepts.
 */
export const nodeIdProblem = (id: string): string | undefined => {
  if (id === "." || id === "..") return "names a directory"
  const problem = plainNameProblem(id)
  if (problem !== undefined) return problem
  return utf8Bytes(id) > maxNodeIdBytes ? `is longer than ${maxNodeIdBytes} bytes` : undefined
}
