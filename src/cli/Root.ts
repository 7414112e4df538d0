import { Command } from "@effect/cli"

/**
 * The `vtree` root command. Subcommands live one per module in this folder and are wired here,
 * so `vtree --help` is the single place that lists what the tool can do.
 */
export const rootCommand = Command.make("vtree").pipe(
  Command.withDescription(
    "Answer questions about long videos with an LLM agent searching a hierarchical video tree."
  ),
  Command.withSubcommands([])
)
