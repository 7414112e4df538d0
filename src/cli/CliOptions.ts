import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect } from "effect"
import { defaultDb } from "../config/RunConfig.js"
import { agentDefaults } from "../domain/RunConfig.js"
import type { SkillMode } from "../programs/prompts/PromptManager.js"

/**
 * `Options.withDefault`, with the default written into the help: @effect/cli applies a default but
 * only says "This setting is optional.", which leaves a reader guessing what happens without it.
 */
export const withShownDefault =
  <const B>(value: B, shown: string = String(value)) => <A>(self: Options.Options<A>): Options.Options<A | B> =>
    self.pipe(Options.withDescription(`Default: ${shown}.`), Options.withDefault(value))

/**
 * `--name <integer>`, at least `min`. Read as text and checked here: @effect/cli's own integer option
 * answers "abc" with a bare "'abc' is not a integer" naming no option, and takes any number.
 */
export const wholeNumber = (name: string, min: number): Options.Options<number> =>
  Options.text(name).pipe(
    Options.withPseudoName("integer"),
    Options.mapEffect((raw) => {
      const value = Number(raw.trim())
      return raw.trim() !== "" && Number.isSafeInteger(value) && value >= min
        ? Effect.succeed(value)
        : Effect.fail(
          ValidationError.invalidValue(
            HelpDoc.p(`vtree: ${name.length === 1 ? "-" : "--"}${name} ${raw}: expected a whole number ≥ ${min}`)
          )
        )
    })
  )

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
  skillMode: Options.choice("skill-mode", skillModes).pipe(
    Options.withDescription(help.skillMode),
    withShownDefault(agentDefaults.skillMode)
  ),
  maxSteps: wholeNumber("max-steps", 1).pipe(
    Options.withDescription(help.maxSteps),
    withShownDefault(agentDefaults.maxSteps)
  ),
  webSearch: Options.boolean("web-search").pipe(Options.withDescription(help.webSearch))
})

/** `--db`: an SQLite file or a `postgres://` URL; VTREE_DB_URL when not given, then vtree.db. */
export const dbOption = (description: string) =>
  Options.text("db").pipe(
    Options.withDescription(
      `${description}: an SQLite file, or postgres://user:password@host:5432/database; VTREE_DB_URL when not given. Default: vtree.db.`
    ),
    Options.withFallbackConfig(defaultDb)
  )
