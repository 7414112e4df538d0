import { FetchHttpClient } from "@effect/platform"
import { HashMap, Layer, Logger } from "effect"
import { readFileSync } from "node:fs"
import { SearchSettings, type SearchSettingsShape } from "../../../src/config/SearchSettings.js"
import * as GithubSearch from "../../../src/layers/github/GithubSearch.js"
import * as Reader from "../../../src/layers/reader/Reader.js"
import * as SearxngSearch from "../../../src/layers/searxng/SearxngSearch.js"
import { SearchHub } from "../../../src/programs/search/SearchHub.js"
import { DnsResolver, type ResolvedAddress } from "../../../src/services/DnsResolver.js"

export const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"))

/** The real hub and adapters over real HTTP, with the given settings and a scripted resolver. */
export const hubLayer = (
  settings: SearchSettingsShape,
  resolve: (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>> = async () => []
) =>
  SearchHub.Default.pipe(
    Layer.provide(Layer.mergeAll(SearxngSearch.layer, GithubSearch.layer, Reader.layer)),
    Layer.provide(Layer.mergeAll(FetchHttpClient.layer, Layer.succeed(DnsResolver, DnsResolver.of({ resolve })))),
    Layer.provide(Layer.succeed(SearchSettings, settings))
  )

/** Replaces the logger with one that keeps every line (message and annotations) as text. */
export const captureLogs = () => {
  const lines: Array<string> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) => {
      const fields = HashMap.toEntries(annotations).map(([key, value]) => `${key}=${String(value)}`)
      const messages = Array.isArray(message) ? message : [message]
      lines.push([...messages.map(String), ...fields].join(" "))
    })
  )
  return { lines, layer }
}
