import { Command } from "@effect/cli"
import { buildCommand } from "./BuildCommand.js"
import { doctorCommand } from "./DoctorCommand.js"
import { exportCommand } from "./ExportCommand.js"
import { inferCommand } from "./InferCommand.js"
import { mcpCommand } from "./McpCommand.js"
import { ocrCommand } from "./OcrCommand.js"
import { promptCommand } from "./PromptCommand.js"
import { reportCommand } from "./ReportCommand.js"
import { runsCommand } from "./RunsCommand.js"
import { treeCommand } from "./TreeCommand.js"

/**
 * The `vtree` root command. Subcommands live one per module in this folder and are wired here,
 * so `vtree --help` is the single place that lists what the tool can do.
 */
export const rootCommand = Command.make("vtree").pipe(
  Command.withDescription(
    "Answer questions about long videos with an LLM agent searching a hierarchical video tree."
  ),
  Command.withSubcommands([
    buildCommand,
    doctorCommand,
    exportCommand,
    inferCommand,
    mcpCommand,
    ocrCommand,
    promptCommand,
    reportCommand,
    runsCommand,
    treeCommand
  ])
)
