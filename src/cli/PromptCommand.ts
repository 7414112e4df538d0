import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { VideoMmeTaskTypes } from "../domain/Question.js"
import { loadPromptManager, resolvePromptsDir } from "../programs/prompts/PromptPack.js"
import { UsageError } from "./CliError.js"
import { optionalText, promptOptions } from "./CliOptions.js"

const { maxSteps, prompts, skillMode, webSearch } = promptOptions({
  prompts: "Prompt pack folder, or en / zh for a packaged pack (default: the packaged en pack)",
  skillMode: "auto: the skill for the task type; manual: a skill catalog plus the read_skill tool; none: no skills",
  maxSteps: "Step budget written into the prompt",
  webSearch: "Include the external_search / external_read tools"
})
const taskType = optionalText(
  "task-type",
  "Video-MME task type, e.g. \"Counting Problem\", or one a skill of the pack declares; picks the skill with --skill-mode auto"
)

/** `vtree prompt`: prints the assembled system prompt, so a pack or skill edit can be read as the agent sees it. */
export const promptCommand = Command.make(
  "prompt",
  { prompts, skillMode, taskType, webSearch, maxSteps },
  (args) =>
    Effect.gen(function*() {
      const manager = yield* loadPromptManager(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
      const type = Option.getOrUndefined(args.taskType)
      if (type !== undefined) {
        const skillTypes = manager.skills.flatMap((s) =>
          !s.always && typeof s.taskType === "string" && !s.taskType.startsWith("_") ? [s.taskType] : []
        )
        const known = [...new Set([...VideoMmeTaskTypes, ...skillTypes])]
        const wanted = type.trim().toLowerCase()
        if (!known.some((name) => name.toLowerCase() === wanted)) {
          return yield* new UsageError({
            reason: "InvalidValue",
            option: "--task-type",
            message: `--task-type "${type}": not a task type of Video-MME or of ${manager.dir} — use one of: ${
              known.join(", ")
            }`
          })
        }
        const own = skillTypes.some((name) => name.toLowerCase() === wanted)
        if (args.skillMode === "auto" && !own) {
          yield* Console.error(`vtree: no skill for task type "${type}" in ${manager.dir}; using _default`)
        }
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
