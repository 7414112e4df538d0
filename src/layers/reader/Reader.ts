import { Duration, Effect, Layer } from "effect"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { SearchSettings } from "../../config/SearchSettings.js"
import { SearchError } from "../../domain/Search.js"
import { DnsResolver } from "../../services/DnsResolver.js"
import { PageReader } from "../../services/SearchProviders.js"
import type { ReadableContent, toReadable } from "./ContentExtractor.js"

// The fetch and extraction stack (undici, linkedom, readability, turndown, iconv-lite) is about half of
// the CLI bundle; loaded at start-up it would slow every command, `vtree --help` included, for the few
// runs that read a page. So it is imported on the first read (and once: `import()` caches the module).
const engine = Effect.promise(() => import("./SafeFetch.js"))

// Types only: the extractor itself is loaded by the worker thread, never on this one.
type Readable = ReadableContent
type ReadableInput = Parameters<typeof toReadable>[0]

/**
 * The worker module sits beside this one, compiled like it: `.js` from tsc, `.mjs` in the CLI bundle
 * (scripts/bundle.ts makes it an entry of its own), `.ts` when the tests run the sources — then the
 * thread first registers tsx, the TypeScript loader the project's scripts use.
 */
const spawnExtractor = (): Worker => {
  const here = import.meta.url
  const extension = here.endsWith(".ts") ? "ts" : here.endsWith(".mjs") ? "mjs" : "js"
  const module = new URL(`./ExtractWorker.${extension}`, here)
  const resourceLimits = { maxOldGenerationSizeMb: extractionHeapMb }
  if (extension !== "ts") return new Worker(module, { resourceLimits })
  const tsx = new URL("dist/esm/api/index.mjs", pathToFileURL(createRequire(here).resolve("tsx/package.json")))
  return new Worker(
    `import(${JSON.stringify(tsx.href)}).then(({ register }) => { register(); return import(${
      JSON.stringify(module.href)
    }) })`,
    { eval: true, resourceLimits }
  )
}

/** A page's extraction may use this much heap; past it the worker stops and the read fails. */
const extractionHeapMb = 512

const unreadable = (why: string) =>
  new SearchError({
    reason: "FETCH_FAILED",
    retryable: false,
    message: `the page could not be turned into text (${why}) — read another page`
  })

/**
 * HTML → Markdown in worker threads: the extractor is synchronous and a hostile page can keep it busy
 * for minutes, which on this thread would also stop timers and signal handling. Interrupting a read
 * (the reader's deadline, Ctrl-C) terminates its thread, wherever it is. A thread that finished is kept
 * (unref'd, so it holds no process open; at most two) for the next page: starting one, which loads the
 * whole HTML stack, costs more than most pages.
 */
/** A worker and the read it serves now; its listeners stay for its whole life and report to `serving`. */
interface Extractor {
  readonly worker: Worker
  serving: ((event: ExtractorEvent) => void) | undefined
}
type ExtractorEvent =
  | { readonly _tag: "Reply"; readonly reply: { readonly ok?: Readable; readonly failed?: string } }
  | { readonly _tag: "Crashed"; readonly why: string }

const startExtractor = (): Extractor => {
  const extractor: Extractor = { worker: spawnExtractor(), serving: undefined }
  extractor.worker.on("message", (reply) => extractor.serving?.({ _tag: "Reply", reply }))
  extractor.worker.on("error", (error: Error & { readonly code?: string }) =>
    extractor.serving?.({
      _tag: "Crashed",
      why: error.code === "ERR_WORKER_OUT_OF_MEMORY" ? `extraction needed over ${extractionHeapMb} MB` : error.message
    }))
  extractor.worker.on(
    "exit",
    (code) => extractor.serving?.({ _tag: "Crashed", why: `the extractor stopped with code ${code}` })
  )
  return extractor
}

const idleExtractors: Array<Extractor> = []

const extractInWorker = (input: ReadableInput) =>
  Effect.async<Readable, SearchError>((resume) => {
    const extractor = idleExtractors.pop() ?? startExtractor()
    extractor.worker.ref()
    extractor.serving = (event) => {
      extractor.serving = undefined
      if (event._tag === "Reply" && idleExtractors.length < 2) {
        extractor.worker.unref()
        idleExtractors.push(extractor)
      } else {
        void extractor.worker.terminate()
      }
      resume(
        event._tag === "Crashed"
          ? Effect.fail(unreadable(event.why))
          : event.reply.ok === undefined
          ? Effect.fail(unreadable(event.reply.failed ?? "no result"))
          : Effect.succeed(event.reply.ok)
      )
    }
    extractor.worker.postMessage(input)
    return Effect.sync(() => {
      extractor.serving = undefined
      void extractor.worker.terminate()
    })
  })

export const readableTypes = ["text/html", "application/xhtml+xml", "text/plain"] as const

/** The URL reader: safe fetch (URL rules, pinned DNS, capped body) then the Markdown pipeline. */
export const layer: Layer.Layer<PageReader, never, SearchSettings | DnsResolver> = Layer.effect(
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
    const read = Effect.fn("Reader.read")(function*(request: { readonly url: string; readonly maxChars: number }) {
      const { safeFetch } = yield* engine
      // One budget for download and extraction: a page that arrives fast but takes minutes to extract
      // is as late as one that never arrives.
      const { page, readable } = yield* Effect.gen(function*() {
        const page = yield* safeFetch(request.url, options)
        const readable = yield* extractInWorker({
          body: page.body,
          mimeType: page.mimeType,
          charset: page.charset,
          url: page.finalUrl,
          maxChars: request.maxChars
        })
        return { page, readable }
      }).pipe(
        Effect.timeoutFail({
          duration: settings.providerTimeout,
          onTimeout: () =>
            new SearchError({
              reason: "PROVIDER_TIMEOUT",
              message: `the page was not read (downloaded and extracted) within ${
                Duration.format(settings.providerTimeout)
              } — try again or read another page`
            })
        })
      )
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
