import { Command } from "@effect/cli"
import { buildCommand } from "./build/BuildCommand.js"
import { doctorCommand } from "./doctor/DoctorCommand.js"
import { exportCommand } from "./export/ExportCommand.js"
import { inferCommand } from "./infer/InferCommand.js"
import { judgeCommand } from "./judge/JudgeCommand.js"
import { mcpCommand } from "./mcp/McpCommand.js"
import { ocrCommand } from "./ocr/OcrCommand.js"
import { promptCommand } from "./prompt/PromptCommand.js"
import { reportCommand } from "./report/ReportCommand.js"
import { runsCommand } from "./runs/RunsCommand.js"
import { treeCommand } from "./tree/TreeCommand.js"

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
    treeCommand,
    judgeCommand
  ])
)
