/** Video trees on disk: load one for the agent (`loadTreeEnvironment`), read or check its index, import caption sets, pack and verify. */
export { FlatTree, NestedTree, TreeDecodeError, TreeDecodeErrorReason } from "../domain/Tree.js"
export type { Level, SearchHit, TreeIndex, TreeNode } from "../domain/TreeIndex.js"
export type { TreeEnvironment } from "../programs/tree/TreeEnvironment.js"
export { loadTreeEnvironment, readTreeIndex, resolveTreePaths } from "../programs/tree/TreeLoader.js"
// Trees from released caption sets, and packs to share them with their hashes.
export { type ImportOptions, type ImportSummary, importTrees } from "../programs/import/ImportTree.js"
export { type PackOptions, type PackSummary, packTrees } from "../programs/tree/pack/TreePack.js"
export { type UnpackOptions, type UnpackSummary, unpackTrees } from "../programs/tree/pack/TreeUnpack.js"
export { verifyPack, type VerifySummary } from "../programs/tree/pack/TreeVerify.js"
