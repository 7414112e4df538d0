import { Readability } from "@mozilla/readability"
import { getEncoding } from "encoding-sniffer"
import iconv from "iconv-lite"
import { parseHTML } from "linkedom"
import TurndownService from "turndown"

/**
 * Bytes of an untrusted page → readable Markdown. Pure and synchronous (no I/O) so it can be tested
 * on fixture bytes and benchmarked alone.
 */

/**
 * Readability is synchronous and walks every element several times, so it cannot be interrupted:
 * its time budget is enforced as an element budget. Past it, the body text is used instead.
 * (Readability's own maxElemsToParse counts through getElementsByTagName("*"), which linkedom
 * answers with 0, so the count is taken here.)
 */
export const readabilityElementBudget = 40_000

/**
 * Readability's work grows with the square of the nesting depth (it re-reads every subtree's text for
 * each ancestor, and retries up to four times): 100 levels cost a fifth of a second, 5,000 levels
 * (a 55 KB page) minutes. Real pages nest a few dozen levels, so deeper pages skip to the body text,
 * which is linear. The worker's deadline (ExtractWorker.ts) bounds whatever these budgets miss.
 */
export const readabilityDepthBudget = 128

/**
 * Charset by BOM > Content-Type > <meta> > windows-1252, the WHATWG sniffing order that
 * encoding-sniffer implements; iconv-lite then decodes (it knows GBK, the windows-125x family, …).
 */
export const decodeBody = (
  body: Uint8Array,
  contentTypeCharset: string | undefined
): { text: string; charset: string } => {
  const sniff = (label: string | undefined) =>
    getEncoding(body, {
      ...(label === undefined ? {} : { transportLayerEncodingLabel: label }),
      defaultEncoding: "windows-1252"
    })
  let sniffed = sniff(contentTypeCharset)
  // A server's UTF-16 label on bytes that are not UTF-16 (no BOM, and no NUL byte where every ASCII
  // character of UTF-16 markup would have one) is a wrong label: sniff the bytes as if it were absent.
  if (/^utf-?16/i.test(sniffed) && !hasUtf16Bom(body) && !body.subarray(0, 1024).includes(0)) {
    sniffed = sniff(undefined)
  }
  const charset = iconv.encodingExists(sniffed) ? sniffed : "windows-1252"
  return { text: iconv.decode(Buffer.from(body.buffer, body.byteOffset, body.byteLength), charset), charset }
}

const hasUtf16Bom = (body: Uint8Array): boolean =>
  body.length >= 2 && ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff))

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
turndown.remove(["script", "style", "noscript", "iframe", "form"] as unknown as TurndownService.Filter)

/** The few DOM members used here; the project compiles without the DOM lib, and linkedom provides them. */
interface DomElement {
  readonly textContent: string | null
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  removeAttribute(name: string): void
  remove(): void
}
interface DomDocument {
  readonly body: DomElement | null
  readonly documentElement: DomElement | null
  querySelector(selector: string): DomElement | null
  querySelectorAll(selector: string): ArrayLike<DomElement>
  toString(): string
}
const parseHtml = (html: string): DomDocument => (parseHTML(html) as unknown as { document: DomDocument }).document

const frameTags = /<!doctype[^>]*>|<\/?(?:html|head|body)(?:\s[^>]*)?>/gi

/**
 * linkedom builds a document only around a literal <html>…<body>: a fragment, or a valid doctype page
 * that leaves out the optional tags, comes back with no body and so no text. Such pages are rebuilt
 * with the frame that an HTML parser would infer (what precedes </head> goes in the head).
 */
const parseDocument = (html: string): DomDocument => {
  const document = parseHtml(html)
  if (document.querySelector("html > body") !== null) return document
  const headEnd = html.search(/<\/head\s*>/i)
  const head = headEnd < 0 ? "" : html.slice(0, headEnd).replace(frameTags, "")
  const body = (headEnd < 0 ? html : html.slice(headEnd)).replace(frameTags, "")
  return parseHtml(`<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`)
}

interface TreeNode {
  readonly firstElementChild: TreeNode | null
  readonly nextElementSibling: TreeNode | null
}

/** Element count and deepest nesting in one pass, without recursion (the page may be thousands deep). */
const shapeOf = (document: DomDocument): { elements: number; depth: number } => {
  const root = document.documentElement as unknown as TreeNode | null
  if (root === null) return { elements: 0, depth: 0 }
  const stack: Array<readonly [TreeNode, number]> = [[root, 1]]
  let elements = 0
  let depth = 0
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [node, level] = entry
    elements += 1
    if (level > depth) depth = level
    // linkedom computes `children` by walking the list on every access: siblings are followed instead.
    for (let child = node.firstElementChild; child !== null; child = child.nextElementSibling) {
      stack.push([child, level + 1])
    }
  }
  return { elements, depth }
}

const collapse = (text: string): string =>
  text
    .replace(/[ \t\f\v\r]+/g, " ")
    .replace(/ *\n[\n ]*/g, "\n\n")
    .trim()

/** Links in the extracted text must still work once it has left the page, so make them absolute. */
const absolutize = (document: DomDocument, base: string): void => {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of Array.from(document.querySelectorAll(selector))) {
      const value = element.getAttribute(attribute)
      if (value === null) continue
      try {
        element.setAttribute(attribute, new URL(value, base).href)
      } catch {
        element.removeAttribute(attribute)
      }
    }
  }
}

export interface Extracted {
  readonly title: string
  readonly markdown: string
  readonly extractor: "readability" | "body_text" | "plain_text"
  readonly byline?: string
  readonly siteName?: string
  readonly publishedTime?: string
  readonly lang?: string
}

const bodyText = (document: DomDocument): string => {
  for (const element of Array.from(document.querySelectorAll("script, style, noscript, template"))) element.remove()
  return collapse(document.body?.textContent ?? document.documentElement?.textContent ?? "")
}

/** Readability's article as Markdown, or the page's plain body text when it finds no article. */
export const extractHtml = (html: string, baseUrl: string): Extracted => {
  const document = parseDocument(html)
  const pageTitle = collapse(document.querySelector("title")?.textContent ?? "")
  absolutize(document, baseUrl)
  let article: ReturnType<Readability["parse"]> = null
  const shape = shapeOf(document)
  if (shape.elements <= readabilityElementBudget && shape.depth <= readabilityDepthBudget) {
    try {
      // Handing turndown the element itself (not its HTML) saves re-parsing the article with domino.
      article = new Readability(document as never, {
        charThreshold: 200,
        serializer: (node: unknown) => node as string
      }).parse()
    } catch {
      article = null
    }
  }
  const articleMarkdown = article?.content
    ? collapseMarkdown(turndown.turndown(article.content as unknown as TurndownService.Node))
    : ""
  if (article !== null && articleMarkdown.length > 0) {
    return {
      title: collapse(article.title ?? "") || pageTitle,
      markdown: articleMarkdown,
      extractor: "readability",
      ...(article.byline ? { byline: article.byline } : {}),
      ...(article.siteName ? { siteName: article.siteName } : {}),
      ...(article.publishedTime ? { publishedTime: article.publishedTime } : {}),
      ...(article.lang ? { lang: article.lang } : {})
    }
  }
  // Readability has mutated `document`; the fallback reads a fresh parse of the original page.
  return { title: pageTitle, markdown: bodyText(parseDocument(html)), extractor: "body_text" }
}

const collapseMarkdown = (markdown: string): string => markdown.replace(/\n{3,}/g, "\n\n").trim()

/** Cuts to at most `maxChars` UTF-16 units without splitting a surrogate pair. */
export const truncate = (text: string, maxChars: number): { text: string; truncated: boolean } => {
  if (text.length <= maxChars) return { text, truncated: false }
  let end = maxChars
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return { text: text.slice(0, end), truncated: true }
}

export interface ReadableContent extends Extracted {
  readonly content: string
  readonly truncated: boolean
  readonly charset: string
}

/** The whole pipeline: decode, extract (HTML) or keep (plain text), truncate. */
export const toReadable = (input: {
  readonly body: Uint8Array
  readonly mimeType: string
  readonly charset: string | undefined
  readonly url: string
  readonly maxChars: number
}): ReadableContent => {
  const decoded = decodeBody(input.body, input.charset)
  const extracted: Extracted = input.mimeType === "text/plain"
    ? { title: "", markdown: decoded.text.replace(/\r\n?/g, "\n").trim(), extractor: "plain_text" }
    : extractHtml(decoded.text, input.url)
  const cut = truncate(extracted.markdown, input.maxChars)
  return { ...extracted, content: cut.text, truncated: cut.truncated, charset: decoded.charset }
}
