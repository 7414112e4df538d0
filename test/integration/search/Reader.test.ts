import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, TestClock } from "effect"
import iconv from "iconv-lite"
import { gzipSync } from "node:zlib"
import { SearchSettings } from "../../../src/config/SearchSettings.js"
import { parseAllowRanges } from "../../../src/domain/UrlSafety.js"
import * as Reader from "../../../src/layers/reader/Reader.js"
import { contentHash } from "../../../src/programs/search/ContentHash.js"
import { DnsResolver, type ResolvedAddress } from "../../../src/services/DnsResolver.js"
import { PageReader } from "../../../src/services/SearchProviders.js"
import { fixtureServer, redirectTo, sendBody } from "../../support/search/FixtureServer.js"
import { articlePage } from "../../support/search/pages.js"

const loopbackOnly = (() => {
  const parsed = parseAllowRanges(["127.0.0.0/8"])
  if (!("ranges" in parsed)) throw new Error(parsed.error)
  return parsed.ranges
})()

const noDns = async (): Promise<ReadonlyArray<ResolvedAddress>> => {
  throw new Error("this test resolves no names")
}

/** The real reader, allowed to reach loopback fixtures (the test allow-range), with a scripted resolver. */
const readerWith = (
  resolve: (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>> = noDns,
  providerTimeout?: Duration.DurationInput
) =>
  Reader.layer.pipe(
    Layer.provide(Layer.succeed(
      SearchSettings,
      SearchSettings.make({
        enabled: true,
        reader: { enabled: true },
        policy: { allowRanges: loopbackOnly },
        ...(providerTimeout === undefined ? {} : { providerTimeout: Duration.decode(providerTimeout) })
      })
    )),
    Layer.provide(Layer.succeed(DnsResolver, DnsResolver.of({ resolve })))
  )

const read = (url: string, maxChars = 30000) => Effect.flatMap(PageReader, (reader) => reader.read({ url, maxChars }))

const html = (body: string | Buffer, extra: Record<string, string> = {}) =>
  sendBody(200, body, { "content-type": "text/html; charset=utf-8", ...extra })

// Reading a page starts the extraction thread, which the tests load from the TypeScript sources through
// tsx: seconds on a quiet machine, more on a busy one. Timing itself is asserted nowhere.
describe("reader against a local server", { timeout: 90_000 }, () => {
  it.scoped("extracts an article as Markdown", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/story": html(articlePage(4)) })
      const page = yield* read(`${server.origin}/story`)
      assert.strictEqual(page.title, "Tidal Power in the Bay of Fundy")
      assert.strictEqual(page.contentType, "text/html")
      assert.include(page.content, "## Section 4")
      assert.include(page.content, `(${server.origin}/2024/related)`)
      assert.notInclude(page.content, "newsletter")
      assert.isFalse(page.truncated)
      assert.strictEqual(page.metadata.extractor, "readability")
    }).pipe(Effect.provide(readerWith())))

  it.scoped("decodes windows-1251 (header) and GBK (meta) pages", () =>
    Effect.gen(function*() {
      const russian = "<html><head><title>Новости</title></head><body><article><p>" +
        "Сегодня в Москве идёт снег. ".repeat(20) + "</p></article></body></html>"
      const chinese = "<html><head><meta charset=\"gbk\"><title>新闻</title></head><body><article><p>" +
        "今天北京下雪了，交通缓慢。".repeat(30) + "</p></article></body></html>"
      const server = yield* fixtureServer({
        "/ru": sendBody(200, iconv.encode(russian, "windows-1251"), {
          "content-type": "text/html; charset=windows-1251"
        }),
        "/zh": sendBody(200, iconv.encode(chinese, "gbk"), { "content-type": "text/html" })
      })
      const ru = yield* read(`${server.origin}/ru`)
      assert.strictEqual(ru.title, "Новости")
      assert.include(ru.content, "Сегодня в Москве идёт снег.")
      assert.strictEqual(ru.metadata.charset, "windows-1251")
      const zh = yield* read(`${server.origin}/zh`)
      assert.strictEqual(zh.title, "新闻")
      assert.include(zh.content, "今天北京下雪了")
    }).pipe(Effect.provide(readerWith())))

  it.scoped("falls back to body text for a page Readability cannot take", () =>
    Effect.gen(function*() {
      const huge = `<html><body><div>${"<b>x</b>".repeat(41_000)}</div><p>tail text</p></body></html>`
      const server = yield* fixtureServer({ "/grid": html(huge) })
      const page = yield* read(`${server.origin}/grid`, 100000)
      assert.strictEqual(page.metadata.extractor, "body_text")
      assert.isTrue(page.content.endsWith("tail text"))
    }).pipe(Effect.provide(readerWith())))

  it.scoped("refuses bodies over 5 MiB, declared or streamed, and gzip bombs", () =>
    Effect.gen(function*() {
      const big = Buffer.alloc(6 * 1024 * 1024, 0x61)
      const server = yield* fixtureServer({
        "/declared": html(big),
        "/chunked": (_req, res) => {
          res.writeHead(200, { "content-type": "text/html" })
          res.end(big)
        },
        "/bomb": html(gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), { "content-encoding": "gzip" })
      })
      for (const path of ["/declared", "/chunked", "/bomb"]) {
        const error = yield* Effect.flip(read(`${server.origin}${path}`))
        assert.strictEqual(error.reason, "CONTENT_TOO_LARGE", path)
      }
    }).pipe(Effect.provide(readerWith())))

  it.scoped("decompresses gzip and brotli bodies within the cap", () =>
    Effect.gen(function*() {
      const { brotliCompressSync } = yield* Effect.promise(() => import("node:zlib"))
      const page = articlePage(2)
      const server = yield* fixtureServer({
        "/gz": html(gzipSync(page), { "content-encoding": "gzip" }),
        "/br": html(brotliCompressSync(page), { "content-encoding": "br" })
      })
      const gz = yield* read(`${server.origin}/gz`)
      const br = yield* read(`${server.origin}/br`)
      assert.include(gz.content, "## Section 2")
      assert.strictEqual(gz.content, br.content)
    }).pipe(Effect.provide(readerWith())))

  it.scoped("refuses content types that are not text, and error statuses", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({
        "/logo.png": sendBody(200, Buffer.from([0x89, 0x50, 0x4e, 0x47]), { "content-type": "image/png" })
      })
      const error = yield* Effect.flip(read(`${server.origin}/logo.png`))
      assert.strictEqual(error.reason, "UNSUPPORTED_CONTENT_TYPE")
      assert.include(error.message, "image/png")
      const missing = yield* Effect.flip(read(`${server.origin}/missing`))
      assert.deepStrictEqual([missing.reason, missing.retryable], ["FETCH_FAILED", false])
    }).pipe(Effect.provide(readerWith())))

  it.scoped("reads fragments, doctype pages without <html>, and pages with a wrong UTF-16 label", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({
        "/fragment": html("<p>just a fragment</p>"),
        "/doctype": html("<!doctype html><title>Short</title><p>a valid page without optional tags</p>"),
        "/mislabelled": sendBody(200, "<html><body><p>not UTF-16 at all</p></body></html>", {
          "content-type": "text/html; charset=utf-16"
        })
      })
      assert.strictEqual((yield* read(`${server.origin}/fragment`)).content, "just a fragment")
      const doctype = yield* read(`${server.origin}/doctype`)
      assert.strictEqual(doctype.title, "Short")
      assert.include(doctype.content, "a valid page without optional tags")
      assert.include((yield* read(`${server.origin}/mislabelled`)).content, "not UTF-16 at all")
    }).pipe(Effect.provide(readerWith())))

  // Real time: the deadline must stop extraction that is busy in its own thread, which TestClock
  // cannot show. Nothing asserts how long it took, only that the budget ended it. The budget is a
  // small fraction of the extraction (about 0.9 s for this 2.4 MB page on a quiet, fast machine under
  // Node 26, where a 1 s budget once let it finish): a loaded machine only makes the page later, which
  // the same budget ends too.
  it.live("a page that arrives at once but takes longer to extract than the budget ends in PROVIDER_TIMEOUT", () =>
    Effect.gen(function*() {
      const paragraph = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(5) +
        "<a href='/x'>link</a></p>"
      const heavy = "<html><body>" +
        `<div><article><h2>T</h2>${paragraph.repeat(5)}</article></div>`.repeat(1500) + "</body></html>"
      const server = yield* fixtureServer({ "/heavy": html(heavy) })
      const error = yield* Effect.flip(read(`${server.origin}/heavy`))
      assert.strictEqual(error.reason, "PROVIDER_TIMEOUT")
      assert.include(error.message, "extracted")
    }).pipe(Effect.scoped, Effect.provide(readerWith(noDns, "200 millis"))))

  it.live("a page nested 5,000 levels deep (55 KB) comes back as its text", () =>
    Effect.gen(function*() {
      const deep = `<html><body>${"<div>".repeat(5000)}deep text${"</div>".repeat(5000)}</body></html>`
      const server = yield* fixtureServer({ "/deep": html(deep) })
      const page = yield* read(`${server.origin}/deep`)
      assert.strictEqual(page.content, "deep text")
      assert.strictEqual(page.metadata.extractor, "body_text")
    }).pipe(Effect.scoped, Effect.provide(readerWith(noDns, "60 seconds"))), { timeout: 90_000 })

  it.scoped("a stalled server ends in PROVIDER_TIMEOUT at the 10 s page budget", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/stall": () => {} })
      const fiber = yield* Effect.fork(Effect.flip(read(`${server.origin}/stall`)))
      yield* Effect.promise(() => server.arrived("/stall"))
      yield* TestClock.adjust("9999 millis")
      assert.isNull(yield* Fiber.poll(fiber).pipe(Effect.map((o) => (o._tag === "Some" ? "done" : null))))
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "PROVIDER_TIMEOUT")
    }).pipe(Effect.provide(readerWith())))

  it.scoped("truncates to max_chars and hashes the content stably", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/story": html(articlePage(6)) })
      const first = yield* read(`${server.origin}/story`, 1000)
      const second = yield* read(`${server.origin}/story`, 1000)
      assert.isTrue(first.truncated)
      assert.strictEqual(first.content.length, 1000)
      assert.strictEqual(contentHash(first.content), contentHash(second.content))
      const full = yield* read(`${server.origin}/story`, 100000)
      assert.isFalse(full.truncated)
      assert.isTrue(full.content.startsWith(first.content))
    }).pipe(Effect.provide(readerWith())))
})

describe("URL safety while fetching", () => {
  it.scoped("follows allowed redirects by hand and reports the final URL", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({
        "/start": redirectTo("/middle", 301),
        "/middle": redirectTo("/story?utm_source=x", 307),
        "/story": html(articlePage(1))
      })
      const page = yield* read(`${server.origin}/start`)
      assert.strictEqual(page.finalUrl, `${server.origin}/story?utm_source=x`)
      assert.strictEqual(page.metadata.redirects, 2)
    }).pipe(Effect.provide(readerWith())))

  it.scoped("blocks a redirect to a private address at hop 1 and at hop 5", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({
        "/hop1": redirectTo("http://10.0.0.1/admin"),
        "/a1": redirectTo("/a2"),
        "/a2": redirectTo("/a3"),
        "/a3": redirectTo("/a4"),
        "/a4": redirectTo("/a5"),
        "/a5": redirectTo("http://169.254.169.254/latest/meta-data/")
      })
      const first = yield* Effect.flip(read(`${server.origin}/hop1`))
      assert.strictEqual(first.reason, "URL_BLOCKED")
      assert.include(first.message, "private")
      const fifth = yield* Effect.flip(read(`${server.origin}/a1`))
      assert.strictEqual(fifth.reason, "URL_BLOCKED")
      assert.include(fifth.message, "link-local")
      // The private targets were never requested: only the fixture's own paths arrived.
      assert.deepStrictEqual(server.requests.map((r) => r.path), ["/hop1", "/a1", "/a2", "/a3", "/a4", "/a5"])
    }).pipe(Effect.provide(readerWith())))

  it.scoped("blocks redirect loops and more than 5 redirects", () =>
    Effect.gen(function*() {
      const chain = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`/c${i}`, redirectTo(`/c${i + 1}`)]))
      const server = yield* fixtureServer({
        "/loop-a": redirectTo("/loop-b"),
        "/loop-b": redirectTo("/loop-a"),
        ...chain
      })
      const loop = yield* Effect.flip(read(`${server.origin}/loop-a`))
      assert.strictEqual(loop.reason, "URL_BLOCKED")
      assert.include(loop.message, "loop")
      const long = yield* Effect.flip(read(`${server.origin}/c0`))
      assert.strictEqual(long.reason, "URL_BLOCKED")
      assert.include(long.message, "more than 5 redirects")
    }).pipe(Effect.provide(readerWith())))

  it.scoped("blocks a public name that resolves to a private address, or to any blocked address", () =>
    Effect.gen(function*() {
      const answers: Record<string, ReadonlyArray<ResolvedAddress>> = {
        "innocent.example": [{ address: "10.20.30.40", family: 4 }],
        "mixed.example": [{ address: "93.184.216.34", family: 4 }, { address: "fd00::1", family: 6 }]
      }
      const blocked = yield* Effect.flip(
        read("http://innocent.example/").pipe(
          Effect.provide(readerWith(async (host) => answers[host] ?? []))
        )
      )
      assert.strictEqual(blocked.reason, "URL_BLOCKED")
      assert.include(blocked.message, "resolves to a private")
      const mixed = yield* Effect.flip(
        read("http://mixed.example/").pipe(
          Effect.provide(readerWith(async (host) => answers[host] ?? []))
        )
      )
      assert.strictEqual(mixed.reason, "URL_BLOCKED")
    }))

  it.scoped("pins the checked address: an answer that changes before connect is never used", () =>
    Effect.gen(function*() {
      const server = yield* fixtureServer({ "/story": html(articlePage(1)), "/again": redirectTo("/story") })
      const asked: Array<string> = []
      // First answer: the (allowed) fixture. Any later answer: a private address a rebinding attacker wants.
      const rebinding = async (host: string): Promise<ReadonlyArray<ResolvedAddress>> => {
        asked.push(host)
        return asked.length === 1 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "10.9.9.9", family: 4 }]
      }
      const page = yield* read(`http://rebind.example:${server.port}/again`).pipe(Effect.provide(readerWith(rebinding)))
      assert.include(page.content, "Section 1")
      assert.deepStrictEqual(asked, ["rebind.example"])
      assert.strictEqual(server.requests.length, 2)
      assert.strictEqual(server.requests[0]!.headers.host, `rebind.example:${server.port}`)
    }))
})
