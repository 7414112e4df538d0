// @effect/cli's help, made specific: it adds a generic line per option type ("A user-defined piece of
// text.", "This setting is optional."), shows USAGE without the program name, and pads every command of
// the root list to the longest usage (some 500 columns). The library has no switch for any of these,
// so its text is tidied on the way out.

// The library's own sentences: what the option's usage line and our descriptions already say.
const genericLines = [
  /^A user-defined piece of text( that is confidential)?\.$/,
  /^An integer\.$/,
  /^A floating point number\.$/,
  /^A true or false value\.$/,
  /^A date without a time-zone in the ISO-8601 format, such as 2007-12-03T10:15:30\.$/,
  /^A file-system path\.$/,
  /^One of the following: .*$/,
  /^This setting is optional\.$/,
  /^This argument is optional\.$/,
  /^This argument may be repeated zero or more times\.$/
]

/**
 * The help text with generic lines dropped, `$ vtree <command>` in USAGE, and the command list unpadded.
 * A boolean with a negation (`--no-x` / `--x`) is listed twice under one description; a description
 * written `--no-x: what it does; --x: what that does` is split, so each name shows its own half.
 */
export const tidyHelp = (text: string, program = "vtree"): string => {
  const out: Array<string> = []
  let option = ""
  for (const line of text.split("\n")) {
    const trimmed = line.trim()
    if (line.startsWith("--") || line.startsWith("-")) option = line.split(" ")[0]!.replace(/^\(|,$/g, "")
    const halves = /^(--[\w-]+): (.*?); (--[\w-]+): (.*)$/.exec(trimmed)
    if (halves !== null && (option === halves[1] || option === halves[3])) {
      const [, first, firstText, , secondText] = halves
      out.push(`  ${upperFirst(option === first ? firstText! : secondText!)}`)
      continue
    }
    if (genericLines.some((pattern) => pattern.test(trimmed))) {
      // Its paragraph's blank line goes with it.
      if (out.length > 0 && out[out.length - 1]!.trim() === "") out.pop()
      continue
    }
    if (line.startsWith("$ ") && !line.startsWith(`$ ${program}`)) {
      out.push(`$ ${program} ${line.slice(2)}`)
      continue
    }
    // `  - <usage><padding><description>`: the usage on its line, the description indented below it.
    const command = /^(\s+- )(\S.*?)\s{2,}(\S.*)$/.exec(line.trimEnd())
    if (command !== null) {
      out.push(`${command[1]}${command[2]}`, `${" ".repeat(command[1]!.length + 2)}${command[3]}`)
      continue
    }
    out.push(line.trimEnd())
  }
  return out.join("\n")
}

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
