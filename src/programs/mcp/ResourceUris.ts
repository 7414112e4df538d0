/** The URIs of vtree's resources, written and read in one place. */

export const treePrefix = "vtree://tree/"
export const framePrefix = "vtree://frame/"
/** An MCP App: the tree page a host shows in a sandboxed frame. */
export const appPrefix = "ui://vtree/tree/"

export const treeUri = (videoId: string): string => `${treePrefix}${encodeURIComponent(videoId)}`
export const frameUri = (nodeId: string): string => `${framePrefix}${encodeURIComponent(nodeId)}`

/** The id after a prefix, percent-decoded; empty when it is not valid percent-encoding. */
export const idAfter = (uri: string, prefix: string): string => {
  try {
    return decodeURIComponent(uri.slice(prefix.length))
  } catch {
    return ""
  }
}
