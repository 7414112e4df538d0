import { Duration, Effect, Layer } from "effect"
import { SearchSettings } from "../../config/SearchSettings.js"
import { SearchError } from "../../domain/Search.js"
import { DnsResolver } from "../../services/DnsResolver.js"
import { PageReader } from "../../services/SearchProviders.js"

// The fetch and extraction stack (undici, linkedom, readability, turndown, iconv-lite) is about half of
// the CLI bundle; loaded at start-up it would slow every command, `vtree --help` included, for the few
// runs that read a page. So it is imported on the first read (and once: `import()` caches the module).
const engine = Effect.promise(() => Promise.all([import("./SafeFetch.js"), import("./ContentExtractor.js")]))

export const readableTypes = ["text/html", "application/xhtml+xml", "text/plain"] as const

/** The URL reader: safe fetch (URL rules, pinned DNS, capped body) then the Markdown pipeline. */
export const PageReaderLive: Layer.Layer<PageReader, never, SearchSettings | DnsResolver> = Layer.effect(
  PageReader,
  Effect.gen(function*() {
    const settings = yield* SearchSettings
    const resolver = yield* DnsResolver
    const options = {
      policy: settings.policy,
      resolve: resolver.resolve,
      maxRedirects: settings.maxRedirects,
      maxBodyBytes: settings.maxBodyBytes,
      acceptTypes: readableTypes,
      userAgent: "vtree-search/0.1 (+https://github.com/vtree; reader)"
    }
    const read = Effect.fn("PageReader.read")(function*(request: { readonly url: string; readonly maxChars: number }) {
      const [{ safeFetch }, { toReadable }] = yield* engine
      const page = yield* safeFetch(request.url, options).pipe(
        Effect.timeoutFail({
          duration: settings.providerTimeout,
          onTimeout: () =>
            new SearchError({
              reason: "PROVIDER_TIMEOUT",
              message: `the page did not arrive within ${
                Duration.format(settings.providerTimeout)
              } — try again or read another page`
            })
        })
      )
      const readable = toReadable({
        body: page.body,
        mimeType: page.mimeType,
        charset: page.charset,
        url: page.finalUrl,
        maxChars: request.maxChars
      })
      return {
        finalUrl: page.finalUrl,
        title: readable.title,
        content: readable.content,
        contentType: page.mimeType,
        truncated: readable.truncated,
        metadata: {
          http_status: page.status,
          redirects: page.redirects,
          charset: readable.charset,
          extractor: readable.extractor,
          bytes: page.body.byteLength,
          ...(readable.byline === undefined ? {} : { byline: readable.byline }),
          ...(readable.siteName === undefined ? {} : { site_name: readable.siteName }),
          ...(readable.publishedTime === undefined ? {} : { published_time: readable.publishedTime }),
          ...(readable.lang === undefined ? {} : { lang: readable.lang })
        }
      }
    })
    return PageReader.of({ provider: "reader", read })
  })
)
