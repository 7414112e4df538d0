import stringWidth from "string-width"

/**
 * Rows of cells as lines, each column padded to its widest cell and two spaces apart, trailing blanks
 * cut. Widths are terminal columns, not UTF-16 units: a CJK video id or domain takes two columns a
 * character, a combining mark none, so tables of names in any script stay aligned.
 * `right[i]` right-aligns column i (numbers).
 */
export const alignColumns = (
  rows: ReadonlyArray<ReadonlyArray<string>>,
  right: ReadonlyArray<boolean> = []
): ReadonlyArray<string> => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, stringWidth(cell))))
  return rows.map((row) =>
    row.map((cell, i) => {
      const pad = " ".repeat(widths[i]! - stringWidth(cell))
      return right[i] === true ? pad + cell : cell + pad
    }).join("  ").trimEnd()
  )
}

/** The width a text takes in a terminal. */
export const textWidth = (text: string): number => stringWidth(text)
