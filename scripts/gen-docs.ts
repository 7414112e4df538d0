// The parts of docs/ that are read off the code: the VTREE_* / OTEL_* variables the config modules read
// (docs/configuration.md) and every command's --help (docs/cli.md). Each goes between the markers below, so
// the hand-written text around it stays. `npm run docs` rewrites them; a unit test (test/unit/docs) fails
// when the checked-in text differs from what this would write now.
import { CliConfig, CommandDescriptor, HelpDoc, Usage } from "@effect/cli"
import { ConfigError, ConfigProvider, ConfigProviderPathPatch, Effect, HashSet } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { stripVTControlCharacters } from "node:util"
import { rootCommand } from "../src/cli/Root.js"
import { loadAsrConfig } from "../src/config/AsrConfig.js"
import { loadCacheDir } from "../src/config/CacheConfig.js"
import { loadFfmpegTools } from "../src/config/FfmpegConfig.js"
import { loadMcpAskWait, loadMcpSessionIdle, loadMcpToken } from "../src/config/McpConfig.js"
import { loadJudgeConfig, loadRoleConfigs } from "../src/config/ProviderConfig.js"
import { defaultDb, loadBreakerCalls, loadPriceText, loadTestingKnobs } from "../src/config/RunConfig.js"
import { loadSearchSettings } from "../src/config/SearchSettings.js"
import { loadDbOutageSeconds } from "../src/config/StoreConfig.js"
import { loadTracingConfig } from "../src/config/TracingConfig.js"
import { priceRoles } from "../src/domain/Cost.js"

export const root = fileURLToPath(new URL("..", import.meta.url))
export const start = "<!-- generated:start (npm run docs) -->"
export const end = "<!-- generated:end -->"

// ---- Variables: every loader run against a provider that records what it is asked for ------------------

/** Each loader, under the module that exports it. */
const loaders: ReadonlyArray<readonly [string, string, Effect.Effect<unknown, unknown>]> = [
  ["ProviderConfig.ts", "llm", loadRoleConfigs.llm],
  ["ProviderConfig.ts", "vlm", loadRoleConfigs.vlm],
  ["ProviderConfig.ts", "embedding", loadRoleConfigs.embedding],
  ["ProviderConfig.ts", "ocr", loadRoleConfigs.ocr],
  ["ProviderConfig.ts", "judge", loadJudgeConfig],
  ["RunConfig.ts", "run database", defaultDb],
  ["RunConfig.ts", "testing knobs", loadTestingKnobs],
  ["RunConfig.ts", "breaker", loadBreakerCalls],
  ["StoreConfig.ts", "run database", loadDbOutageSeconds],
  ...priceRoles.map((role) => ["RunConfig.ts", "prices", loadPriceText(role)] as const),
  ["SearchSettings.ts", "Search Hub", loadSearchSettings],
  ["McpConfig.ts", "MCP", loadMcpToken],
  ["McpConfig.ts", "MCP", loadMcpSessionIdle],
  ["McpConfig.ts", "MCP", loadMcpAskWait],
  ["TracingConfig.ts", "tracing", loadTracingConfig],
  ["AsrConfig.ts", "speech to text", loadAsrConfig],
  ["FfmpegConfig.ts", "ffmpeg", loadFfmpegTools],
  ["CacheConfig.ts", "caches", loadCacheDir]
]

/**
 * A value that lets a loader read on past a variable: some settings are read only when another is set
 * (the judge's timeout once a judge model is named), so every loader runs with nothing set
 * and again with each variable holding a value of its kind.
 */
const plausible = (name: string): string =>
  /(_URLS?|_ENDPOINT)$/.test(name)
    ? "http://127.0.0.1:1/v1"
    : name.endsWith("_DISABLED")
    ? "false"
    : name.endsWith("_THINKING")
    ? "none"
    : name === "VTREE_OCR"
    ? "monkeyocr"
    : name.endsWith("_PROTOCOL")
    ? "http/json"
    : name.endsWith("_ALLOW_RANGES")
    ? "10.0.0.0/8"
    : name.endsWith("_HEADERS") || name.endsWith("_ATTRIBUTES")
    ? "a=b"
    : name.endsWith("_LANGS")
    ? "eng"
    : name.endsWith("_BYTES")
    ? "100000000"
    : "1"

const recording = (seen: Set<string>, answer: (name: string) => string | undefined) =>
  ConfigProvider.fromFlat(ConfigProvider.makeFlat({
    load: (path, primitive) => {
      const name = path.join("_")
      seen.add(name)
      const value = answer(name)
      return value === undefined
        ? Effect.fail(ConfigError.MissingData([...path], `${name} is unset`))
        : Effect.map(primitive.parse(value), (parsed) => [parsed])
    },
    enumerateChildren: () => Effect.succeed(HashSet.empty()),
    patch: ConfigProviderPathPatch.empty
  }))

const variablesOf = (loader: Effect.Effect<unknown, unknown>): ReadonlySet<string> => {
  const seen = new Set<string>()
  // A third pass leaves the role's own endpoint unset, for the OPENAI_* variables it falls back to.
  const ownEndpointUnset = (name: string) => /_(BASE_URL|API_KEY)$/.test(name) ? undefined : plausible(name)
  for (const answer of [() => undefined, plausible, ownEndpointUnset]) {
    Effect.runSync(Effect.either(loader).pipe(Effect.withConfigProvider(recording(seen, answer))))
  }
  return seen
}

export const configurationTable = (): string => {
  const readers = new Map<string, Map<string, Set<string>>>()
  for (const [file, what, loader] of loaders) {
    for (const name of variablesOf(loader)) {
      const files = readers.get(name) ?? new Map<string, Set<string>>()
      files.set(file, (files.get(file) ?? new Set<string>()).add(what))
      readers.set(name, files)
    }
  }
  const rows = [...readers].sort(([a], [b]) => a.localeCompare(b)).map(([name, files]) =>
    `| \`${name}\` | ${
      [...files].map(([file, whats]) => `\`src/config/${file}\` (${[...whats].join(", ")})`).join("; ")
    } |`
  )
  return ["| variable | read by |", "| --- | --- |", ...rows].join("\n")
}

// ---- The CLI: every command's help, rendered in process as `--help` prints it -------------------------

export type Node = { readonly _tag: string; readonly [key: string]: unknown }

/** Every command under a descriptor, the parent before its subcommands (@effect/cli's descriptor tree walked). */
export const commands = (descriptor: Node): Array<CommandDescriptor.Command<unknown>> => {
  switch (descriptor._tag) {
    case "Subcommands":
      return [
        ...commands(descriptor["parent"] as Node),
        ...(descriptor["children"] as ReadonlyArray<Node>).flatMap(commands)
      ]
    case "Map":
      return commands(descriptor["command"] as Node)
    default:
      return [descriptor as unknown as CommandDescriptor.Command<unknown>]
  }
}

const text = (doc: HelpDoc.HelpDoc): string =>
  stripVTControlCharacters(HelpDoc.toAnsiText(doc)).split("\n").map((line) => line.trimEnd()).join("\n").trim()

const builtIns = "\n\n--completions sh | bash | fish | zsh"

/** Every command, root first: its full name, usage line and help, as `vtree … --help` prints them. */
export const commandHelps = (): ReadonlyArray<
  { readonly name: string; readonly usage: string; readonly help: string }
> => {
  const config = CliConfig.defaultConfig
  const descriptor = (rootCommand as unknown as { readonly descriptor: Node }).descriptor
  // A subcommand's usage starts with its own name; the parent's name comes from the walk.
  const parents = new Map<string, string>()
  for (const child of descriptor["children"] as ReadonlyArray<Node>) {
    const [head, ...rest] = commands(child)
    if (head === undefined) continue
    const name = [...CommandDescriptor.getNames(head)][0]!
    for (const sub of rest) parents.set([...CommandDescriptor.getNames(sub)][0]!, `vtree ${name}`)
    parents.set(name, "vtree")
  }
  return commands(descriptor).map((command) => {
    const own = [...CommandDescriptor.getNames(command)][0]!
    const name = own === "vtree" ? "vtree" : `${parents.get(own) ?? "vtree"} ${own}`
    const usage = text(Usage.getHelp(CommandDescriptor.getUsage(command)))
    return {
      name,
      usage: name.split(" ").slice(0, -1).concat(usage).join(" "),
      help: text(CommandDescriptor.getHelp(command, config))
    }
  })
}

export const cliReference = (): string =>
  commandHelps().map(({ help, name, usage }) => {
    // The options every command takes (--log-level, --help, …) are listed once, under `vtree`.
    const own = name === "vtree" ? help : help.split(builtIns)[0]!.trimEnd()
    return [`## \`${name}\``, "", "```text", usage, "", own, "```"].join("\n")
  }).join("\n\n")

// ---- The files ---------------------------------------------------------------------------------------

/** The text between the markers of `file` replaced by `generated`; a file without markers is refused. */
export const splice = (file: string, current: string, generated: string): string => {
  const from = current.indexOf(start)
  const to = current.indexOf(end)
  if (from === -1 || to < from) throw new Error(`${file}: no ${start} … ${end} markers — put them back`)
  return `${current.slice(0, from + start.length)}\n\n${generated}\n\n${current.slice(to)}`
}

export const generatedFiles = (): ReadonlyArray<{ readonly path: string; readonly generate: () => string }> => [
  { path: "docs/configuration.md", generate: configurationTable },
  { path: "docs/cli.md", generate: cliReference }
]

/** Each generated file as it is and as `npm run docs` would write it. */
export const docs = () =>
  generatedFiles().map(({ generate, path }) => {
    const current = readFileSync(join(root, path), "utf8")
    return { path, current, expected: splice(path, current, generate()) }
  })

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { current, expected, path } of docs()) {
    if (current === expected) continue
    writeFileSync(join(root, path), expected)
    process.stdout.write(`wrote ${path}\n`)
  }
}
