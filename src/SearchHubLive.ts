import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Layer } from "effect"
import { type ConfigurationError } from "./config/ConfigurationError.js"
import { SearchSettings } from "./config/SearchSettings.js"
import { GithubSearchLive } from "./layers/github/GithubSearch.js"
import { PageReaderLive } from "./layers/reader/ReaderLive.js"
import { SearxngSearchLive } from "./layers/searxng/SearxngSearch.js"
import { SearchHub } from "./programs/search/SearchHub.js"
import { DnsResolver } from "./services/DnsResolver.js"

// Composition rather than an adapter: it wires the hub (a program) to the live adapters, so it sits
// beside the entry points, above both, where src/search.ts and the CLI's composition root take it.

/**
 * The Search Hub with its real providers, configured from VTREE_SEARCH_*: what `vtree mcp` serves and
 * what `vtree infer --web-search` gives the agent's external_search / external_read tools.
 */
export const SearchHubLive: Layer.Layer<SearchHub | SearchSettings, ConfigurationError> = SearchHub.Default.pipe(
  Layer.provide(
    Layer.mergeAll(SearxngSearchLive, GithubSearchLive, PageReaderLive).pipe(
      Layer.provide(Layer.mergeAll(DnsResolver.system, FetchHttpClient.layer))
    )
  ),
  Layer.provideMerge(SearchSettings.fromEnv)
)
