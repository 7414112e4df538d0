#!/usr/bin/env node
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { describeFailure } from "./cli/ErrorReport.js"
import { rootCommand } from "./cli/Root.js"
import { version } from "./cli/version.js"

const cli = Command.run(rootCommand, { name: "vtree", version })

const main = cli(process.argv).pipe(
  Effect.tapErrorCause((cause) => {
    const line = describeFailure(cause)
    return line === undefined ? Effect.void : Console.error(line)
  }),
  Effect.provide(NodeContext.layer)
)

// Errors are reported above in the user's terms; runMain only turns the failure into exit code 1.
NodeRuntime.runMain(main, { disableErrorReporting: true })
