// The committed sample tree (samples/trees/vtSmpl0001a) standing in for the tree of any video a question
// set names, for runs that need a tree per video but not its frames.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const sampleTree = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../../samples/trees/vtSmpl0001a/tree.json", import.meta.url)), "utf8")
) as Record<string, unknown>

/** Writes `<trees>/<videoId>/tree.json`: the sample tree under `videoId` (its node ids unchanged). */
export const writeSampleTreeAs = (trees: string, videoId: string): void => {
  mkdirSync(join(trees, videoId), { recursive: true })
  writeFileSync(join(trees, videoId, "tree.json"), JSON.stringify({ ...sampleTree, videoID: videoId }))
}
