// Search Hub benchmarks: reader throughput on a ~300 KB article page served on loopback, and the
// cost of the URL-safety check per URL. Each figure has a peer measured in the same run.
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { performance } from "node:perf_hooks"
import { request } from "undici"
import { SearchSettings } from "../src/config/SearchSettings.js"
import { checkUrl, parseAllowRanges } from "../src/domain/UrlSafety.js"
import { toReadable } from "../src/layers/reader/ContentExtractor.js"
import * as Reader from "../src/layers/reader/Reader.js"
import { DnsResolver } from "../src/services/DnsResolver.js"
import { PageReader } from "../src/services/SearchProviders.js"
import { articlePageOfSize } from "../test/support/search/pages.js"
import type { BenchModule } from "./run.js"

const urls = [
  "https://en.wikipedia.org/wiki/Bay_of_Fundy",
  "https://www.example.com/a/b/c?x=1&y=2",
  "http://93.184.216.34/",
  "http://169.254.169.254/latest/meta-data/",
  "http://2130706433/",
  "http://[::ffff:127.0.0.1]/",
  "http://[2002:a9fe:a9fe::1]/",
  "https://[2606:4700:4700::1111]/dns-query",
  "http://printer.local/",
  "http://example.com@127.0.0.1/"
]

const timeLoop = (iterations: number, body: () => void): number => {
  const start = performance.now()
  for (let i = 0; i < iterations; i++) body()
  return performance.now() - start
}

const urlSafety = () => {
  const rounds = 20_000
  let sink = 0
  // Warm both paths so the JIT treats them alike.
  timeLoop(2_000, () => urls.forEach((u) => (sink += checkUrl(u).ok ? 1 : 0)))
  timeLoop(2_000, () => urls.forEach((u) => (sink += new URL(u).hostname.length)))
  const checkMs = timeLoop(rounds, () => urls.forEach((u) => (sink += checkUrl(u).ok ? 1 : 0)))
  const parseMs = timeLoop(rounds, () => urls.forEach((u) => (sink += new URL(u).hostname.length)))
  const perCheck = (checkMs * 1000) / (rounds * urls.length)
  const perParse = (parseMs * 1000) / (rounds * urls.length)
  return { perCheck, perParse, sink }
}

const serve = (page: string) =>
  new Promise<{ origin: string; close: () => Promise<void> }>((resolve) => {
    const server = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page)
    )
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

const readerThroughput = async (pages: number) => {
  const page = articlePageOfSize(300)
  const bytes = Buffer.byteLength(page)
  const server = await serve(page)
  const parsed = parseAllowRanges(["127.0.0.0/8"])
  if (!("ranges" in parsed)) throw new Error(parsed.error)
  const layer = Reader.layer.pipe(
    Layer.provide(
      Layer.succeed(
        SearchSettings,
        SearchSettings.make({ enabled: true, reader: { enabled: true }, policy: { allowRanges: parsed.ranges } })
      )
    ),
    Layer.provide(DnsResolver.layer)
  )
  const url = `${server.origin}/article`
  try {
    const readAll = Effect.gen(function*() {
      const reader = yield* PageReader
      let chars = 0
      for (let i = 0; i < 3; i++) chars += (yield* reader.read({ url, maxChars: 100000 })).content.length
      const start = performance.now()
      for (let i = 0; i < pages; i++) chars += (yield* reader.read({ url, maxChars: 100000 })).content.length
      return { ms: performance.now() - start, chars }
    })
    const reader = await Effect.runPromise(readAll.pipe(Effect.provide(layer)))

    const fetchOnce = async () => (await (await request(url)).body.text()).length
    for (let i = 0; i < 3; i++) await fetchOnce()
    let start = performance.now()
    for (let i = 0; i < pages; i++) await fetchOnce()
    const rawMs = performance.now() - start

    const body = Buffer.from(page)
    start = performance.now()
    let sample = toReadable({ body, mimeType: "text/html", charset: "utf-8", url, maxChars: 100000 })
    for (let i = 1; i < pages; i++) {
      sample = toReadable({ body, mimeType: "text/html", charset: "utf-8", url, maxChars: 100000 })
    }
    const extractMs = performance.now() - start
    return { bytes, reader, rawMs, extractMs, markdownChars: sample.content.length, extractor: sample.extractor }
  } finally {
    await server.close()
  }
}

const bench: BenchModule = {
  title: "Search Hub",
  run: async () => {
    const pages = 30
    const r = await readerThroughput(pages)
    const readerRate = pages / (r.reader.ms / 1000)
    const rawRate = pages / (r.rawMs / 1000)
    const extractRate = pages / (r.extractMs / 1000)
    const u = urlSafety()
    return [
      "### Reader throughput",
      "",
      `A ${
        Math.round(r.bytes / 1024)
      } KB news-style article page (navigation, sidebar, footer, ${r.markdownChars} chars of Markdown out, extractor: ${r.extractor})`,
      `served from a loopback HTTP server, read ${pages} times in sequence after 3 warm-up reads.`,
      "",
      "| path | pages/s | ms/page |",
      "| --- | ---: | ---: |",
      `| \`PageReader.read\` (URL check, pinned agent, capped body, charset sniff, Readability, Markdown) | ${
        readerRate.toFixed(1)
      } | ${(r.reader.ms / pages).toFixed(1)} |`,
      `| peer: raw undici \`request\` + \`body.text()\` of the same page | ${rawRate.toFixed(1)} | ${
        (r.rawMs / pages).toFixed(1)
      } |`,
      `| extraction only (\`toReadable\` on the bytes, no network) | ${extractRate.toFixed(1)} | ${
        (r.extractMs / pages).toFixed(1)
      } |`,
      "",
      `Reader / raw fetch = ${
        (readerRate / rawRate).toFixed(3)
      }: the reader's time is almost all HTML parsing and extraction`,
      `(linkedom + Readability + turndown), not the safety machinery: extraction alone accounts for`,
      `${((r.extractMs / r.reader.ms) * 100).toFixed(0)} % of the reader's time.`,
      "",
      "### URL-safety check",
      "",
      `\`checkUrl\` (WHATWG parse, scheme/credential/internal-name rules, ipaddr.js classification incl. embedded IPv4)`,
      `over ${urls.length} mixed URLs (public, private, encoded IPv4, mapped/6to4 IPv6, internal name, userinfo), ${20_000} rounds.`,
      "No DNS: resolution is the network's cost and is measured by the reader row above.",
      "",
      "| path | µs/URL |",
      "| --- | ---: |",
      `| \`checkUrl\` | ${u.perCheck.toFixed(2)} |`,
      `| peer: plain \`new URL()\` parse | ${u.perParse.toFixed(2)} |`,
      "",
      `Check / parse = ${(u.perCheck / u.perParse).toFixed(2)}×; per page read the check is ${
        ((u.perCheck / 1000) / (r.reader.ms / pages) * 100).toFixed(4)
      } % of the read time.`
    ].join("\n")
  }
}

export default bench
