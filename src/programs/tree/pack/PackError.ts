// Kept apart from the pack programs so the CLI can name it without loading them.
import { Schema } from "effect"

export const PackErrorReason = Schema.Literal(
  // an entry that would write outside the folder, a link, a device, a file the manifest does not list
  "Unsafe",
  // a file whose size or sha256 differs from the manifest, or one listed and absent (verify's finding)
  "Mismatch",
  // more bytes than the manifest declares, or than the cap allows (a gzip bomb)
  "TooLarge",
  // not gzip, not tar, no manifest.json first, a manifest that does not decode
  "Malformed",
  // the output folder holds something unpack must not replace
  "Exists",
  // a tree or video id to pack that is not there, a tree that cannot be packed as it is
  "BadInput",
  // reading or writing failed (permissions, disk full)
  "Io"
)
export type PackErrorReason = typeof PackErrorReason.Type

/** Why pack, unpack or verify stopped; `message` is one line naming the file, the entry and the fix. */
export class PackError extends Schema.TaggedError<PackError>()("PackError", {
  reason: PackErrorReason,
  message: Schema.String
}) {}
