/**
 * The bounds of `vtree tree import`, in one place: a caption file is hostile input, and what it may make
 * vtree hold or write is capped here (README, security notes). The output bounds can be lowered per
 * import (`ImportOptions.limits`); the caption bounds are the same for every reader.
 */
import { userFileCaps } from "../../domain/UserFile.js"

export interface ImportLimits {
  /** Characters of one caption's text (a list of strings counted together), checked before it is joined. */
  readonly captionChars: number
  /** Seconds: the latest start, end or video length a caption file may give (1e7 s is 115 days). */
  readonly maxSeconds: number
  /** Videos (tree folders) one caption file may make. */
  readonly videosPerFile: number
  /** Nodes (captions, events and scenes) of one tree. */
  readonly nodesPerTree: number
  /** Bytes of one tree.json: below the cap trees are read with, so every tree written can be read. */
  readonly treeJsonBytes: number
}

export const importLimits: ImportLimits = {
  captionChars: 65_536,
  maxSeconds: 1e7,
  videosPerFile: 10_000,
  nodesPerTree: 200_000,
  treeJsonBytes: userFileCaps.tree
}
