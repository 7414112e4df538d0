// @effect/cli's help, made specific: it adds a generic line per option type ("A user-defined piece of
// text.", "This setting is optional."), shows USAGE without the program name, and lists every command
// of the root with its whole usage, padded to the longest (some 500 columns). The library has no switch for
// any of these, so its text is tidied on the way out.

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
  const commands: Array<{ name: string; description: string }> = []
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
    // `  - <usage><padding><description>`: a command of the list, kept as its name and description.
    const command = /^\s+- (\S.*?)\s{2,}(\S.*)$/.exec(line.trimEnd())
    if (command !== null) {
      commands.push({ name: commandName(command[1]!), description: command[2]! })
      continue
    }
    const bare = /^\s+- (\S.*)$/.exec(line.trimEnd())
    if (bare !== null) {
      commands.push({ name: commandName(bare[1]!), description: "" })
      continue
    }
    out.push(line.trimEnd())
  }
  return commandList(out, commands).join("\n")
}

/** A command's name from its usage line: the words before the first option or argument. */
const commandName = (usage: string): string => {
  const words = usage.split(" ")
  const end = words.findIndex((word) => /^[-[<(]/.test(word))
  return words.slice(0, end === -1 ? words.length : end).join(" ")
}

const listWidth = 120

/** The text before its first `: ` or `; ` outside parentheses. */
const firstClause = (text: string): string => {
  let depth = 0
  for (let i = 0; i < text.length - 1; i++) {
    const char = text[i]!
    if (char === "(") depth++
    else if (char === ")") depth = Math.max(0, depth - 1)
    else if (depth === 0 && (char === ":" || char === ";") && text[i + 1] === " ") return text.slice(0, i)
  }
  return text
}

/**
 * The COMMANDS section as one line per command, `  name  description`, names aligned and each line cut at
 * `listWidth` columns on a word: the full usage and description are the command's own --help.
 */
const commandList = (lines: Array<string>, commands: ReadonlyArray<{ name: string; description: string }>) => {
  if (commands.length === 0) return lines
  while (lines.length > 1 && lines[lines.length - 1] === "" && lines[lines.length - 2] === "") lines.pop()
  const nameWidth = Math.max(...commands.map((command) => command.name.length))
  const listed = commands.map(({ description, name }) => {
    const line = (text: string) => `  ${name.padEnd(nameWidth)}  ${text}`.trimEnd()
    if (line(description).length <= listWidth) return line(description)
    // Too long: the description's first clause (before its first colon or semicolon), else cut on a word.
    const clause = line(firstClause(description))
    if (clause.length <= listWidth) return clause
    const cut = clause.slice(0, listWidth - 1)
    return `${cut.slice(0, cut.lastIndexOf(" "))}…`
  })
  return [...lines, ...listed, ""]
}

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
