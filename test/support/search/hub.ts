import { FetchHttpClient } from "@effect/platform"
import { Effect, HashMap, Layer, Logger } from "effect"
import { readFileSync } from "node:fs"
import { SearchSettings, type SearchSettingsShape } from "../../../src/config/SearchSettings.js"
import { GithubSearchLive } from "../../../src/layers/github/GithubSearch.js"
import { PageReaderLive } from "../../../src/layers/reader/ReaderLive.js"
import { SearxngSearchLive } from "../../../src/layers/searxng/SearxngSearch.js"
import { SearchHub } from "../../../src/programs/search/SearchHub.js"
import { DnsResolver, type ResolvedAddress } from "../../../src/services/DnsResolver.js"
import { SearchMetrics, type SearchRequestMetrics } from "../../../src/services/SearchMetrics.js"

export const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"))

/** The real hub and adapters over real HTTP, with the given settings and a scripted resolver. */
export const hubLayer = (
  settings: SearchSettingsShape,
  resolve: (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>> = async () => []
) =>
  SearchHub.Default.pipe(
    Layer.provide(Layer.mergeAll(SearxngSearchLive, GithubSearchLive, PageReaderLive)),
    Layer.provide(Layer.mergeAll(FetchHttpClient.layer, Layer.succeed(DnsResolver, DnsResolver.of({ resolve })))),
    Layer.provide(Layer.succeed(SearchSettings, settings))
  )

/**
 * Keeps every log line (message and annotations) and every hub metrics record as `key=value` text, in
 * the order they came; `metrics` holds the records as the hub made them.
 */
export const captureLogs = () => {
  const lines: Array<string> = []
  const metrics: Array<SearchRequestMetrics> = []
  const logger = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) => {
      const fields = HashMap.toEntries(annotations).map(([key, value]) => `${key}=${String(value)}`)
      const messages = Array.isArray(message) ? message : [message]
      lines.push([...messages.map(String), ...fields].join(" "))
    })
  )
  const sink = Layer.succeed(SearchMetrics, {
    record: (record) =>
      Effect.sync(() => {
        metrics.push(record)
        lines.push(Object.entries(record).map(([key, value]) => `${key}=${String(value)}`).join(" "))
      })
  })
  return { lines, metrics, layer: Layer.merge(logger, sink) }
}
