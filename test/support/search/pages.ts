/** A news-style page: chrome around an article of `sections` sections (about 1 KB each). */
export const articlePage = (sections: number): string => {
  const body = Array.from({ length: sections }, (_, i) =>
    `<h2>Section ${i + 1}</h2>` +
    `<p>The tidal range in the Bay of Fundy reaches sixteen metres, and engineers have spent decades measuring how much of that motion a turbine can take without harming fish. Section ${
      i + 1
    } looks at the measurements.</p>` +
    `<p>Each turbine is tested over a full lunar cycle; the data are published with the raw logs so that other teams can check the numbers. Read the <a href="/2024/related">related report</a> for the method.</p>` +
    `<p>Critics point out that sediment moves differently once the flow slows, and that the long-term effect on the mud flats is not known yet. The operators answer that monitoring continues.</p>`)
    .join("\n")
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tidal Power in the Bay of Fundy</title>
<script>tracker()</script><style>body{}</style></head><body>
<header><nav><a href="/">Home</a> <a href="/world">World</a> <a href="/science">Science</a></nav></header>
<aside class="sidebar"><p>Subscribe to our newsletter</p></aside>
<main><article><h1>Tidal Power in the Bay of Fundy</h1><p class="byline">By A. Writer</p>
${body}
</article></main>
<footer><p>© Example News</p></footer></body></html>`
}

/** An article page padded to roughly `kilobytes` KB, for the reader benchmark. */
export const articlePageOfSize = (kilobytes: number): string => {
  const perSection = Buffer.byteLength(articlePage(2)) - Buffer.byteLength(articlePage(1))
  const fixed = Buffer.byteLength(articlePage(1)) - perSection
  return articlePage(Math.max(1, Math.round((kilobytes * 1024 - fixed) / perSection)))
}

/** `levels` nested <div>s around one line of text: 5,000 levels (55 KB) once froze Readability for minutes. */
export const nestedPage = (levels: number, text = "deep text"): string =>
  `<html><body>${"<div>".repeat(levels)}${text}${"</div>".repeat(levels)}</body></html>`

/**
 * A page within every extraction budget (30,000 elements, 121 levels, 2.7 MB) that still keeps
 * Readability busy for about 20 s (a paragraph of text at every level makes each ancestor re-read its
 * subtree): only the reader's deadline, or terminating the extraction, ends it sooner.
 */
export const slowToExtractPage = (): string => {
  const text = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, with a comma, and more. "
  const chain = `<div>${text}`.repeat(120) + "</div>".repeat(120)
  return `<html><body>${chain.repeat(250)}</body></html>`
}
