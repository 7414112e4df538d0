/** Video trees on disk: load one for the agent (`loadTreeEnvironment`), read or check its index. */
export { FlatTree, NestedTree, TreeDecodeError, TreeDecodeErrorReason } from "../domain/Tree.js"
export type { Level, SearchHit, TreeIndex, TreeNode } from "../domain/TreeIndex.js"
export type { TreeEnvironment } from "../programs/tree/TreeEnvironment.js"
export { loadTreeEnvironment, readTreeIndex, resolveTreePaths } from "../programs/tree/TreeLoader.js"
