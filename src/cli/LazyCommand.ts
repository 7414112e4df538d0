import { Effect } from "effect"

/**
 * A command's work, loaded when the command runs. The root command lists every subcommand's options for
 * `--help` and for parsing, but what each one does (the agent, the stores, the MCP SDK, OpenTelemetry,
 * sharp, the Parquet reader) sits in a module of its own that is imported only here: `vtree report`
 * never reads the code of `vtree mcp`, and `--help` reads neither. On Node 20, which has no compile cache,
 * compiling code a command does not use was most of a start.
 */
export const loadedWhenRun = <A, M, E, R>(
  load: () => Promise<M>,
  handler: (module: M, args: A) => Effect.Effect<void, E, R>
) =>
(args: A): Effect.Effect<void, E, R> => Effect.flatMap(Effect.promise(load), (module) => handler(module, args))
