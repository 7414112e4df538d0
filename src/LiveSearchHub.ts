import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Layer } from "effect"
import { type ConfigurationError } from "./config/ConfigurationError.js"
import { SearchSettings, type SearchSettingsShape } from "./config/SearchSettings.js"
import * as GithubSearch from "./layers/github/GithubSearch.js"
import * as Reader from "./layers/reader/Reader.js"
import * as SearxngSearch from "./layers/searxng/SearxngSearch.js"
import { SearchHub } from "./programs/search/SearchHub.js"
import { DnsResolver } from "./services/DnsResolver.js"

// Composition rather than an adapter: it wires the hub (a program) to the live adapters, so it sits
// beside the entry points, above both, where src/search.ts and the CLI's composition root take it.

const withProviders = SearchHub.Default.pipe(
  Layer.provide(
    Layer.mergeAll(SearxngSearch.layer, GithubSearch.layer, Reader.layer).pipe(
      Layer.provide(Layer.mergeAll(DnsResolver.layer, FetchHttpClient.layer))
    )
  )
)

/**
 * The Search Hub with its real providers (SearXNG, GitHub, the safe page reader) and the given settings
 * (`SearchSettings.make({ … })`): everything off unless switched on.
 */
export const layer = (settings: SearchSettingsShape): Layer.Layer<SearchHub | SearchSettings> =>
  withProviders.pipe(Layer.provideMerge(Layer.succeed(SearchSettings, settings)))

/**
 * The same, configured from VTREE_SEARCH_*: what `vtree mcp` serves and what `vtree infer --web-search`
 * gives the agent's external_search / external_read tools.
 */
export const layerConfig: Layer.Layer<SearchHub | SearchSettings, ConfigurationError> = withProviders.pipe(
  Layer.provideMerge(SearchSettings.layerConfig)
)
