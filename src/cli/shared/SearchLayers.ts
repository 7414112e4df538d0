/** The Search Hub with its live providers (VTREE_SEARCH_*), for `mcp` and `infer --web-search`. */
import * as LiveSearchHub from "../../LiveSearchHub.js"

export const hub = LiveSearchHub.layerConfig
