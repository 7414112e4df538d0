import { Context, type Effect } from "effect"
import type { CodeScope, SearchError, SearchResultItem } from "../domain/Search.js"

/** One hit as a provider adapter reports it; the hub adds ids, ranks, timestamps and citations. */
export interface ProviderHit {
  readonly type: SearchResultItem["type"]
  readonly title: string
  readonly url: string
  readonly snippet: string
  /** ISO 8601, or null when the provider gave no date: never invented. */
  readonly publishedAt: string | null
  readonly sourceName: string
  readonly language?: string
  readonly metadata: Record<string, unknown>
}

export interface ProviderPage {
  readonly hits: ReadonlyArray<ProviderHit>
  readonly metadata: Record<string, unknown>
}

export interface WebQuery {
  readonly query: string
  readonly category: "general" | "news"
  readonly language?: string
  readonly region?: string
  readonly freshnessDays?: number
  readonly limit: number
}

/** A search provider: its name (reported with every answer) and one search call. */
export interface SearchPort<Query> {
  readonly provider: string
  readonly search: (query: Query) => Effect.Effect<ProviderPage, SearchError>
}

/** Web and news search (SearXNG in production). */
export class WebSearch extends Context.Tag("vtree/WebSearch")<WebSearch, SearchPort<WebQuery>>() {}

export interface CodeQuery {
  readonly query: string
  readonly scope: CodeScope
  readonly freshnessDays?: number
  readonly limit: number
}

/** Repository, code and issue search (GitHub in production). */
export class CodeSearch extends Context.Tag("vtree/CodeSearch")<CodeSearch, SearchPort<CodeQuery>>() {}

export interface PageContent {
  readonly finalUrl: string
  readonly title: string
  /** Markdown, already cut to the requested length. */
  readonly content: string
  readonly contentType: string
  readonly truncated: boolean
  readonly metadata: Record<string, unknown>
}

/** Fetches one untrusted URL safely and turns it into readable Markdown. */
export class PageReader extends Context.Tag("vtree/PageReader")<
  PageReader,
  {
    readonly provider: string
    readonly read: (
      request: { readonly url: string; readonly maxChars: number }
    ) => Effect.Effect<PageContent, SearchError>
  }
>() {}
