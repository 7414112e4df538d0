import { assert, describe, it } from "@effect/vitest"
import iconv from "iconv-lite"
import {
  decodeBody,
  extractHtml,
  readabilityElementBudget,
  toReadable,
  truncate
} from "../../../src/layers/reader/ContentExtractor.js"
import { contentHash } from "../../../src/programs/search/ContentHash.js"
import { articlePage } from "../../support/search/pages.js"

describe("charset decoding", () => {
  const russian = "Привет, мир"
  const chinese = "你好，世界"

  it("Content-Type charset decodes windows-1251 and GBK", () => {
    assert.strictEqual(decodeBody(iconv.encode(russian, "windows-1251"), "windows-1251").text, russian)
    assert.strictEqual(decodeBody(iconv.encode(chinese, "gbk"), "gbk").text, chinese)
  })

  it("a <meta> charset is used when the header has none", () => {
    const page = iconv.encode(
      `<html><head><meta charset="windows-1251"></head><body>${russian}</body></html>`,
      "windows-1251"
    )
    assert.include(decodeBody(page, undefined).text, russian)
  })

  it("a BOM beats the header, and the header beats <meta>", () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(chinese, "utf8")])
    assert.strictEqual(decodeBody(bom, "windows-1251").text, chinese)
    const page = iconv.encode(`<meta charset="utf-8">${russian}`, "windows-1251")
    assert.include(decodeBody(page, "windows-1251").text, russian)
  })

  it("a UTF-16 label on bytes that are not UTF-16 is ignored and the page sniffed instead", () => {
    const page = Buffer.from(
      "<html><head><meta charset=\"windows-1251\"></head><body>caf\u00e9 ok</body></html>",
      "latin1"
    )
    for (const label of ["utf-16", "UTF-16LE", "utf-16be"]) {
      const decoded = decodeBody(page, label)
      assert.include(decoded.text, "<body>caf")
      assert.notInclude(decoded.charset.toLowerCase(), "utf-16")
    }
    // Real UTF-16 with its label still decodes as UTF-16.
    assert.strictEqual(
      decodeBody(iconv.encode("<p>\u4f60\u597d</p>", "utf-16le"), "utf-16le").text,
      "<p>\u4f60\u597d</p>"
    )
  })

  it("falls back to windows-1252 when nothing declares a charset", () => {
    const decoded = decodeBody(Buffer.from([0x63, 0x61, 0x66, 0xe9]), undefined)
    assert.deepStrictEqual(decoded, { text: "café", charset: "windows-1252" })
  })
})

describe("extraction", () => {
  it("Readability finds the article, Markdown keeps headings and absolute links", () => {
    const extracted = extractHtml(articlePage(3), "https://news.example.org/2024/story.html")
    assert.strictEqual(extracted.extractor, "readability")
    assert.strictEqual(extracted.title, "Tidal Power in the Bay of Fundy")
    assert.include(extracted.markdown, "## Section 1")
    assert.include(extracted.markdown, "(https://news.example.org/2024/related)")
    assert.notInclude(extracted.markdown, "Subscribe to our newsletter")
    assert.notInclude(extracted.markdown, "tracker()")
  })

  it("falls back to body text when Readability finds no article", () => {
    const extracted = extractHtml(
      "<html><head><title>Gallery</title></head><body><img src='a.png'><pre>  </pre></body></html>",
      "https://e.com/"
    )
    assert.deepStrictEqual(extracted, { title: "Gallery", markdown: "", extractor: "body_text" })
  })

  it("falls back to body text when the page is over Readability's element budget", () => {
    const cells = "<span>cell</span>".repeat(readabilityElementBudget + 10)
    const extracted = extractHtml(`<html><body><div>${cells}</div></body></html>`, "https://e.com/")
    assert.strictEqual(extracted.extractor, "body_text")
    assert.isTrue(extracted.markdown.startsWith("cellcell"))
  })

  it("extracts fragments and doctype pages that have no literal <html> or <body> tag", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["<p>hello fragment</p>", "hello fragment"],
      ["<!doctype html><title>T</title><p>doctype page text</p>", "doctype page text"],
      ["<!DOCTYPE html>\n<head><title>T</title></head><body><p>doctype body</p></body>", "doctype body"],
      ["<html><p>html without body</p></html>", "html without body"],
      ["plain words, no tags at all", "plain words, no tags at all"]
    ]
    for (const [html, text] of cases) assert.include(extractHtml(html, "https://e.com/").markdown, text, html)
    assert.strictEqual(extractHtml("<!doctype html><title>T</title><p>x</p>", "https://e.com/").title, "T")
  })

  it("a page labelled UTF-16 whose bytes are not UTF-16 is still read", () => {
    const readable = toReadable({
      body: Buffer.from("<html><body><p>labelled wrongly</p></body></html>"),
      mimeType: "text/html",
      charset: "utf-16",
      url: "https://e.com/",
      maxChars: 1000
    })
    assert.include(readable.content, "labelled wrongly")
  })

  it("a page nested 5,000 levels deep skips Readability and returns its text", { timeout: 30_000 }, () => {
    const deep = `<html><body>${"<div>".repeat(5000)}deep text${"</div>".repeat(5000)}</body></html>`
    assert.isAbove(deep.length, 55_000)
    const extracted = extractHtml(deep, "https://e.com/")
    assert.strictEqual(extracted.extractor, "body_text")
    assert.strictEqual(extracted.markdown, "deep text")
  })

  it("plain text passes through untouched apart from line endings", () => {
    const readable = toReadable({
      body: Buffer.from("a\r\nb\r\n"),
      mimeType: "text/plain",
      charset: "utf-8",
      url: "https://e.com/x.txt",
      maxChars: 1000
    })
    assert.strictEqual(readable.content, "a\nb")
    assert.strictEqual(readable.extractor, "plain_text")
  })
})

describe("truncation and hashing", () => {
  it("truncates to max_chars without splitting a surrogate pair", () => {
    assert.deepStrictEqual(truncate("abcdef", 4), { text: "abcd", truncated: true })
    assert.deepStrictEqual(truncate("abc", 4), { text: "abc", truncated: false })
    assert.deepStrictEqual(truncate("ab😀", 3), { text: "ab", truncated: true })
  })

  it("hashes the content as sha256 of its UTF-8, stably", () => {
    assert.strictEqual(contentHash("abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    // `printf 'h\xc3\xa9llo' | sha256sum`: é is hashed as its two UTF-8 bytes, not as one Latin-1 byte.
    assert.strictEqual(contentHash("héllo"), "sha256:3c48591d8d098a4538f5e013dfcf406e948eac4d3277b10bf614e295d6068179")
  })
})
