// The small pieces of markup the run page, its trajectories and the comparison page share. Everything
// that came from a model, a question file or a tree passes through `escapeHtml`.
import { escapeHtml } from "../../text/Html.js"
import { formatCount } from "./ReportText.js"

export const esc = (value: string | number | null): string => value === null ? "" : escapeHtml(String(value))

export const jsonBlock = (value: unknown): string => {
  let text: string
  try {
    text = typeof value === "string" ? value : JSON.stringify(value, null, 2) ?? "null"
  } catch {
    text = String(value)
  }
  return `<pre>${escapeHtml(text)}</pre>`
}

export const isEmpty = (value: unknown): boolean =>
  value === null || value === undefined ||
  (typeof value === "object" && Object.keys(value as object).length === 0)

export const num = (n: number): string => `<td class="n">${formatCount(n)}</td>`

export const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string | null): Map<string | null, Array<A>> => {
  const map = new Map<string | null, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const list = map.get(k)
    if (list === undefined) map.set(k, [item])
    else list.push(item)
  }
  return map
}

/** A table of plain-text rows, every cell escaped: the run's settings, the settings two runs differ in. */
export const textTable = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  `<table><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${
    rows.map((row) => `<tr>${row.map((cell) => `<td>${esc(cell)}</td>`).join("")}</tr>`).join("")
  }</table>`
