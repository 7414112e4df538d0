/**
 * A pack's trees checked as vtree will read them, before unpack puts them in place or verify calls them
 * good: each tree.json decodes (node ids and the videoID plain names, every frame_path inside the tree,
 * the videoID its folder's name) and every frame node's file, as FramePath resolves it, stays in its
 * tree's folder. A pack holds regular files only and verify refuses links in a folder, so resolving by
 * name is the whole check here.
 */
import { Either } from "effect"
import { frameRelativePath } from "../FramePath.js"
import { decodeTreeBytes } from "../TreeDecoder.js"

export const treeFileName = "tree.json"

/** The tree folder whose tree.json `path` (a manifest path) is, letter case aside (one file on macOS); else undefined. */
export const treeJsonFolder = (path: string): string | undefined => {
  const parts = path.split("/")
  return parts.length === 2 && parts[1]!.toLowerCase() === treeFileName ? parts[0] : undefined
}

/**
 * Why the tree.json of the pack folder `folder` (its bytes) must not be unpacked or verified, as one line
 * naming the file, the node and the fix; undefined when vtree can read it and its frames stay inside it.
 */
export const packTreeProblem = (folder: string, bytes: Uint8Array): string | undefined => {
  const file = `${folder}/${treeFileName}`
  const decoded = decodeTreeBytes(file, bytes, { folder })
  if (Either.isLeft(decoded)) return decoded.left.message
  const index = decoded.right
  for (const node of index.nodes.values()) {
    if (node.level !== 3) continue
    const relative = frameRelativePath(index, node)
    if (Either.isLeft(relative)) return `${file}: ${relative.left.message}`
  }
  return undefined
}
