import { Command } from "@effect/cli"
import { optionalText, promptOptions } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

const { maxSteps, prompts, skillMode, webSearch } = promptOptions({
  prompts: "Prompt pack folder, or en / zh for a packaged pack (default: the packaged en pack)",
  skillMode: "auto: the skill for the task type; manual: a skill catalog plus the read_skill tool; none: no skills",
  maxSteps: "Step budget written into the prompt",
  webSearch: "Include the external_search / external_read tools"
})
const taskType = optionalText(
  "task-type",
  "A category of any benchmark, by code or name (\"Counting Problem\", CW, needle, TOS); picks the skill with --skill-mode auto"
)
const benchmark = optionalText(
  "benchmark",
  "The benchmark whose categories --task-type names (videomme, lvbench, longvideobench, mlvu, egoschema, nextqa, custom, videommev2)"
)

const options = { prompts, skillMode, taskType, benchmark, webSearch, maxSteps }
export type PromptArgs = Command.Command.ParseConfig<typeof options>

/** `vtree prompt`: prints the assembled system prompt, so a pack or skill edit can be read as the agent sees it. */
export const promptCommand = Command.make(
  "prompt",
  options,
  loadedWhenRun(() => import("./PromptRun.js"), (run, args: PromptArgs) => run.prompt(args))
).pipe(Command.withDescription("Print the assembled system prompt of a prompt pack"))
