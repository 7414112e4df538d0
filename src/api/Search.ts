/**
 * The Search Hub: web, news and code search and a safe URL reader, for agents and other programs.
 * `LiveSearchHub.layer(SearchSettings.make({ … }))` gives the hub with its real providers (SearXNG,
 * GitHub, the page reader); `LiveSearchHub.layerConfig` reads VTREE_SEARCH_*. Providers of your own
 * implement `WebSearch`, `CodeSearch` or `PageReader` under `SearchHub.Default`.
 */
export { SearchSettings, type SearchSettingsShape } from "../config/SearchSettings.js"
export {
  type Capability,
  type Citation,
  type CodeScope,
  ReadRequest,
  ReadResponse,
  SearchError,
  type SearchErrorCode,
  SearchRequest,
  SearchResponse,
  type SearchResultItem
} from "../domain/Search.js"
export { checkUrl, parseAllowRanges, type UrlCheck, type UrlPolicy } from "../domain/UrlSafety.js"
export * as LiveSearchHub from "../LiveSearchHub.js"
export { formatForAgent } from "../programs/search/AgentView.js"
export { SearchHub } from "../programs/search/SearchHub.js"
export { makeWebTools, type WebToolsHub } from "../programs/tools/WebTools.js"
export { DnsResolver } from "../services/DnsResolver.js"
export { CodeSearch, PageReader, WebSearch } from "../services/SearchProviders.js"
