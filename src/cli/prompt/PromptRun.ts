// What `vtree prompt` does, loaded when it runs (cli/LazyCommand.ts); its options are in PromptCommand.ts.
import { Console, Effect, Either, Option } from "effect"
import type { Benchmark } from "../../programs/benchmarks/Benchmark.js"
import { benchmarkNamed, benchmarks } from "../../programs/benchmarks/Registry.js"
import { benchmarkLabels } from "../../programs/benchmarks/StoredResults.js"
import type { PromptManager } from "../../programs/prompts/PromptManager.js"
import { loadPromptManager, resolvePromptsDir } from "../../programs/prompts/PromptPack.js"
import { terminalText } from "../../text/TerminalText.js"
import { UsageError } from "../CliError.js"
import type { PromptArgs } from "./PromptCommand.js"

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase()

/**
 * A benchmark's categories as `--task-type` takes them: its own codes, then the pack's entries for it (a pack
 * may add labels), and for Video-MME the task types skills declare in their header (packs older than
 * categories.json). Each with the names it is also called by.
 */
const categoriesOf = (
  b: Benchmark,
  manager: PromptManager
): ReadonlyArray<{ readonly code: string; readonly names: ReadonlyArray<string> }> => {
  const entries = manager.categories.get(b.name)?.categories ?? []
  const headers = b.name === "videomme"
    ? manager.skills.flatMap((
      s
    ) => (!s.always && s.taskType !== null && !s.taskType.startsWith("_") ? [s.taskType] : []))
    : []
  const codes = [...b.taskTypes, ...entries.map((e) => e.code), ...headers]
    .filter((code, i, all) => all.findIndex((c) => same(c, code)) === i)
  return codes.map((code) => ({
    code,
    names: [code, ...entries.filter((e) => same(e.code, code)).map((e) => e.name)]
  }))
}

const findIn = (b: Benchmark, manager: PromptManager, label: string): string | undefined =>
  categoriesOf(b, manager).find((c) => c.names.some((n) => same(n, label)))?.code

/** `vtree prompt`: prints the assembled system prompt, so a pack or skill edit can be read as the agent sees it. */
export const prompt = (args: PromptArgs) =>
  Effect.gen(function*() {
    const manager = yield* loadPromptManager(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
    const named = Option.getOrUndefined(args.benchmark)
    const forced = named === undefined ? undefined : benchmarkNamed(named)
    if (forced !== undefined && Either.isLeft(forced)) return yield* forced.left
    const chosen = forced === undefined ? undefined : forced.right
    const type = Option.getOrUndefined(args.taskType)
    let kind: { readonly benchmark?: Benchmark; readonly code?: string } = chosen === undefined ? {} : {
      benchmark: chosen
    }
    if (type !== undefined) {
      if (chosen !== undefined && chosen.name === "custom") {
        // A hand-written file's labels are free: any benchmark's category, or one of its own.
        kind = { benchmark: chosen, code: type.trim() }
      } else if (chosen !== undefined) {
        const code = findIn(chosen, manager, type)
        if (code === undefined) {
          const known = categoriesOf(chosen, manager).map((c) => c.code)
          return yield* new UsageError({
            reason: "InvalidValue",
            option: "--task-type",
            message: `--task-type "${type}": not a category of ${benchmarkLabels[chosen.name]} — ` +
              (known.length === 0 ? "it has none: leave --task-type out" : `use one of: ${known.join(", ")}`)
          })
        }
        kind = { benchmark: chosen, code }
      } else {
        const found = benchmarks.map((b) => ({ b, code: findIn(b, manager, type) })).find((f) => f.code !== undefined)
        if (found === undefined) {
          const lists = benchmarks
            .map((b) => ({ b, codes: categoriesOf(b, manager).map((c) => c.code) }))
            .filter(({ codes }) => codes.length > 0)
            .map(({ b, codes }) => `${benchmarkLabels[b.name]}: ${codes.join(", ")}`)
          return yield* new UsageError({
            reason: "InvalidValue",
            option: "--task-type",
            message: `--task-type "${type}": not a category of any benchmark or of ${manager.dir} — use one of: ${
              lists.join("; ")
            }`
          })
        }
        kind = { benchmark: found.b, code: found.code! }
      }
    }
    const question = {
      ...(kind.benchmark === undefined ? {} : { benchmark: kind.benchmark.name }),
      ...(kind.code === undefined ? {} : { taskType: kind.code })
    }
    if (kind.benchmark !== undefined) {
      // The system prompt holds the skill only; what the question's own prompt adds is said here.
      const hint = manager.hint(question)
      const parts = [
        ...(hint.taskType === "" ? [] : [`shown as ${hint.taskType}`]),
        ...(args.skillMode === "auto" && hint.skill !== null ? [`skill ${hint.skill}`] : []),
        ...(hint.note === "" ? [] : [`the question adds: ${hint.note}`])
      ]
      const subject = [benchmarkLabels[kind.benchmark.name], ...(kind.code === undefined ? [] : [kind.code])]
      if (parts.length > 0) yield* Console.error(terminalText(`vtree: ${subject.join(" ")}: ${parts.join("; ")}`))
    }
    yield* Console.log(
      manager.systemPrompt({
        skillMode: args.skillMode,
        webSearch: args.webSearch,
        maxSteps: args.maxSteps,
        ...question
      }).trimEnd()
    )
  })
