import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { resolvePromptsDir, loadPromptManager } from "../programs/prompts/PromptPack.js"
import { defaultMaxSteps } from "../programs/prompts/SystemPrompt.js"
import { withShownDefault } from "./Defaults.js"

const prompts = Options.text("prompts").pipe(
  Options.withDescription("Prompt pack folder, or en / zh for a packaged pack (default: the packaged en pack)"),
  Options.optional
)
const skillMode = Options.choice("skill-mode", ["auto", "manual", "none"]).pipe(
  Options.withDescription(
    "auto: the skill for the task type; manual: a skill catalog plus the read_skill tool; none: no skills"
  ),
  withShownDefault("auto")
)
const taskType = Options.text("task-type").pipe(
  Options.withDescription("Video-MME task type, e.g. \"Counting Problem\" (used by --skill-mode auto)"),
  Options.optional
)
const webSearch = Options.boolean("web-search").pipe(
  Options.withDescription("Include the external_search / external_read tools")
)
const maxSteps = Options.integer("max-steps").pipe(
  Options.withDescription("Step budget written into the prompt"),
  withShownDefault(defaultMaxSteps)
)

/** `vtree prompt`: prints the assembled system prompt, so a pack or skill edit can be read as the agent sees it. */
export const promptCommand = Command.make(
  "prompt",
  { prompts, skillMode, taskType, webSearch, maxSteps },
  (args) =>
    Effect.gen(function*() {
      const manager = yield* loadPromptManager(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
      const type = Option.getOrUndefined(args.taskType)
      if (args.skillMode === "auto" && type !== undefined) {
        const own = manager.skills.some((s) => !s.always && s.taskType?.toLowerCase() === type.trim().toLowerCase())
        if (!own) yield* Console.error(`vtree: no skill for task type "${type}" in ${manager.dir}; using _default`)
      }
      yield* Console.log(
        manager.systemPrompt({
          skillMode: args.skillMode,
          webSearch: args.webSearch,
          maxSteps: args.maxSteps,
          ...(type === undefined ? {} : { taskType: type })
        }).trimEnd()
      )
    })
).pipe(Command.withDescription("Print the assembled system prompt of a prompt pack"))
