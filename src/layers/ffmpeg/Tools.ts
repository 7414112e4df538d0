import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { PlatformError } from "@effect/platform/Error"
import { Chunk, Config, Effect, Option, Stream } from "effect"
import { MediaError } from "../../domain/Media.js"

/** Where the two programs are; each falls back to the name on PATH. */
export interface FfmpegTools {
  readonly ffmpeg: Tool
  readonly ffprobe: Tool
}

export interface Tool {
  readonly name: "ffmpeg" | "ffprobe"
  readonly command: string
  /** The variable that overrides the PATH lookup, named in the error when the program is missing. */
  readonly variable: string
  readonly fromVariable: boolean
}

// Empty counts as unset, like every other VTREE_ variable.
const tool = (name: "ffmpeg" | "ffprobe", variable: string) =>
  Config.option(Config.string(variable)).pipe(
    Config.map((value): Tool => {
      const set = Option.filter(Option.map(value, (raw) => raw.trim()), (raw) => raw !== "")
      return Option.isSome(set)
        ? { name, command: set.value, variable, fromVariable: true }
        : { name, command: name, variable, fromVariable: false }
    })
  )

/** Reads VTREE_FFMPEG and VTREE_FFPROBE; never fails (a missing program is reported when it is run). */
export const toolsConfig: Config.Config<FfmpegTools> = Config.all({
  ffmpeg: tool("ffmpeg", "VTREE_FFMPEG"),
  ffprobe: tool("ffprobe", "VTREE_FFPROBE")
})

export const missingMessage = (tool: Tool): string =>
  tool.fromVariable
    ? `${tool.variable}=${tool.command}: no such program — fix the path or unset ${tool.variable} to use ${tool.name} from PATH`
    : `${tool.name} not found on PATH — install ffmpeg (apt-get install ffmpeg, brew install ffmpeg) or set ${tool.variable} to its path`

export interface ToolOutput {
  readonly exitCode: number
  readonly stdout: Uint8Array
  readonly stderr: string
}

const collect = (stream: Stream.Stream<Uint8Array, PlatformError>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Chunk.toReadonlyArray(chunks)))

/**
 * Runs one program to its end and hands back its exit code and both outputs. Interrupting the effect
 * closes the scope, which kills the child: an abandoned build leaves no ffmpeg decoding behind.
 */
export const runTool = (
  executor: CommandExecutor.CommandExecutor,
  tool: Tool,
  args: ReadonlyArray<string>,
  path: string
): Effect.Effect<ToolOutput, MediaError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const process = yield* executor.start(Command.make(tool.command, ...args))
      const [stdout, stderr, exitCode] = yield* Effect.all(
        [collect(process.stdout), collect(process.stderr), process.exitCode],
        { concurrency: "unbounded" }
      )
      return { exitCode, stdout, stderr: stderr.toString("utf8") }
    })
  ).pipe(
    Effect.catchTags({
      SystemError: (error) =>
        Effect.fail(
          error.reason === "NotFound"
            ? new MediaError({ reason: "ToolMissing", path, message: missingMessage(tool) })
            : new MediaError({ reason: "Failed", path, message: `${path}: could not run ${tool.command} (${error.message})` })
        ),
      BadArgument: (error) =>
        Effect.fail(new MediaError({ reason: "Failed", path, message: `${path}: could not run ${tool.command} (${error.message})` }))
    })
  )

/** The last lines of a tool's stderr that say something, for an error message. */
export const lastErrorLine = (stderr: string): string => {
  const lines = stderr.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "")
  return lines.at(-1) ?? "no message"
}
