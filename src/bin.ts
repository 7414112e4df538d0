#!/usr/bin/env node
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { rootCommand } from "./cli/Root.js"
import { version } from "./cli/version.js"

const cli = Command.run(rootCommand, { name: "vtree", version })

cli(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
