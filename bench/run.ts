// Runs the benchmarks named on the command line (default: all) and rewrites their sections of
// BENCHMARKS.md, leaving the other sections as they were measured.
import { existsSync, readFileSync, writeFileSync } from "node:fs"

export interface BenchModule {
  readonly title: string
  /** Returns the markdown body of the section: figures, how they were measured, ratios. */
  readonly run: () => Promise<string>
}

const all = [
  "tree",
  "providers",
  "agent",
  "harness",
  "search",
  "mcp",
  "build",
  "subtitles",
  "ocr",
  "prefix",
  "report",
  "largeReport",
  "store",
  "workers",
  "benchmarks",
  "import",
  "pack",
  "tracing",
  "testsuite",
  "reportStatistics",
  "judge",
  "videommev2",
  "hourCost",
  "loopcost",
  "buildQueue"
] as const

const file = new URL("../BENCHMARKS.md", import.meta.url)
const header =
  "# Benchmarks\n\nWritten by `npm run bench` (or `npx tsx bench/run.ts NAME…` for some). Each figure says how it was measured\nand its ratio to the ideal or to a peer measured in the same run. Machine: 2 shared cores, Node 20.\n"

// A name without a bench/<name>.ts (pack, tracing, testsuite: measured by hand or by a script of their own) keeps its
// section as written; a section must sit between its markers, or the next run drops it.
const marker = (name: string, edge: "start" | "end") => `<!-- bench:${name}:${edge} -->`

const readSections = (): Map<string, string> => {
  const sections = new Map<string, string>()
  if (!existsSync(file)) return sections
  const text = readFileSync(file, "utf8")
  for (const name of all) {
    const start = text.indexOf(marker(name, "start"))
    const end = text.indexOf(marker(name, "end"))
    if (start >= 0 && end > start) sections.set(name, text.slice(start, end + marker(name, "end").length))
  }
  return sections
}

const main = async () => {
  const requested = process.argv.slice(2)
  const names = requested.length > 0
    ? requested
    : all.filter((name) => existsSync(new URL(`./${name}.ts`, import.meta.url)))
  const sections = readSections()
  for (const name of names) {
    const module = (await import(`./${name}.ts`)).default as BenchModule
    process.stderr.write(`bench ${name}: running…\n`)
    const body = await module.run()
    const stamp = new Date().toISOString().slice(0, 10)
    sections.set(
      name,
      `${marker(name, "start")}\n## ${module.title}\n\n_Measured ${stamp}._\n\n${body.trim()}\n${marker(name, "end")}`
    )
    writeFileSync(
      file,
      [header, ...all.flatMap((n) => (sections.has(n) ? [sections.get(n)!] : []))].join("\n\n") + "\n"
    )
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
