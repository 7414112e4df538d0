// Text from data (cards, subtitles, model replies, file names, ids) rendered for a terminal. A terminal
// obeys the control characters it is sent: ESC ] 0 ; … BEL retitles the window, ESC [ 2 J clears it, a
// C1 CSI (U+009B) does the same in one character. Each such character is shown as its escape (`\x1b`,
// `\x9b`), so the sequence after it is inert printable text and the reader sees that it was there.

/** How a control character is shown: `\x1b`, `\x07`; bidirectional overrides as `\u202e`. */
const shown = (code: number): string =>
  code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`

/**
 * C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F), and the bidirectional overrides and isolates that make
 * a terminal show text in another order than it is stored (U+202A–U+202E, U+2066–U+2069).
 */
export const isControl = (code: number): boolean =>
  code <= 0x1f || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069)

export interface TerminalTextOptions {
  /** Keep `\n` and `\t` as they are: the text is laid out on several lines on purpose (a report, a table). */
  readonly multiline?: boolean
}

/**
 * The text as units a terminal shows: each code point on its own, a control character as its visible
 * escape. Cutting between units never splits an escape or a surrogate pair.
 */
export const terminalUnits = (text: string, options: TerminalTextOptions = {}): ReadonlyArray<string> => {
  const units: Array<string> = []
  for (const char of text) {
    const code = char.codePointAt(0)!
    const kept = options.multiline === true && (char === "\n" || char === "\t")
    units.push(!kept && isControl(code) ? shown(code) : char)
  }
  return units
}

const anyControl = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
const multilineControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** Untrusted text made safe to write to a terminal; every other character is unchanged. */
export const terminalText = (text: string, options: TerminalTextOptions = {}): string => {
  // The common case, text without a control character (line breaks and tabs aside in a multiline text: a
  // help page, a report), is returned as it is.
  const control = options.multiline === true ? multilineControl : anyControl
  if (!control.test(text)) return text
  return terminalUnits(text, options).join("")
}

/**
 * At most `width` characters of the rendered text (a shown escape counts its printed length), cut on
 * whole units; `ellipsis` (counted in `width`) marks a cut.
 */
export const cutTerminalText = (text: string, width: number, ellipsis = ""): string => {
  const units = terminalUnits(text)
  const total = units.reduce((sum, unit) => sum + unitWidth(unit), 0)
  if (total <= width) return units.join("")
  const room = Math.max(0, width - unitWidth(ellipsis))
  let used = 0
  let out = ""
  for (const unit of units) {
    const size = unitWidth(unit)
    if (used + size > room) break
    out += unit
    used += size
  }
  return out + (width >= unitWidth(ellipsis) ? ellipsis : "")
}

/** Columns a unit takes: its code points (an astral character is one, not two UTF-16 units). */
const unitWidth = (unit: string): number => {
  let n = 0
  for (const _ of unit) n += 1
  return n
}

/**
 * Styling a program of ours emitted (ANSI colour and weight: `ESC [ … m`), which carries no data and
 * cannot move the cursor or retitle a window. @effect/cli styles its usage errors with it.
 */
export const withoutStyles = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "")
