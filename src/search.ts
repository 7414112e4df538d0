/**
 * `vtree/search`: the Search Hub for other Effect apps — the hub, its live providers (SearXNG, GitHub,
 * the safe reader), the URL-safety check and the agent-tool wrappers. A separate entry point because
 * the providers pull in an HTML parser, Readability and an HTTP agent that the agent library alone
 * never needs.
 */
export { SearchSettings, type SearchSettingsShape } from "./config/SearchSettings.js"
export * as Search from "./domain/Search.js"
export { canonicalizeUrl, dedupeByCanonicalUrl } from "./domain/SearchUrl.js"
export { blockedAddressReason, checkUrl, parseAllowRanges, type UrlCheck, type UrlPolicy } from "./domain/UrlSafety.js"
export * as LiveSearchHub from "./LiveSearchHub.js"
export { formatForAgent } from "./programs/search/AgentView.js"
export { SearchHub } from "./programs/search/SearchHub.js"
export { makeWebTools, type WebToolsHub } from "./programs/tools/WebTools.js"
export { DnsResolver } from "./services/DnsResolver.js"
export { CodeSearch, PageReader, WebSearch } from "./services/SearchProviders.js"
