import { Options } from "@effect/cli"
import type { SkillMode } from "../programs/prompts/PromptManager.js"
import { defaultMaxSteps } from "../programs/prompts/SystemPrompt.js"

/**
 * `Options.withDefault`, with the default written into the help: @effect/cli applies a default but
 * only says "This setting is optional.", which leaves a reader guessing what happens without it.
 */
export const withShownDefault = <const B>(value: B, shown: string = String(value)) => <A>(self: Options.Options<A>): Options.Options<A | B> =>
  self.pipe(Options.withDescription(`Default: ${shown}.`), Options.withDefault(value))

/** `--name <text>`, optional. */
export const optionalText = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)

const skillModes: ReadonlyArray<SkillMode> = ["auto", "manual", "none"]

/** How the system prompt is assembled, for `infer` and `prompt`; each command words the help its own way. */
export const promptOptions = (help: {
  readonly prompts: string
  readonly skillMode: string
  readonly maxSteps: string
  readonly webSearch: string
}) => ({
  prompts: optionalText("prompts", help.prompts),
  skillMode: Options.choice("skill-mode", skillModes).pipe(Options.withDescription(help.skillMode), withShownDefault("auto")),
  maxSteps: Options.integer("max-steps").pipe(Options.withDescription(help.maxSteps), withShownDefault(defaultMaxSteps)),
  webSearch: Options.boolean("web-search").pipe(Options.withDescription(help.webSearch))
})
