import { createHash } from "node:crypto"

/** `sha256:<hex>` of the text as UTF-8: the same content always hashes the same, wherever it came from. */
export const contentHash = (content: string): string =>
  `sha256:${createHash("sha256").update(content, "utf8").digest("hex")}`
