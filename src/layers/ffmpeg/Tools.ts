import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { PlatformError } from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import { Chunk, Effect, Stream } from "effect"
import type { FfmpegTools, Tool } from "../../config/FfmpegConfig.js"
import { MediaError } from "../../domain/Media.js"

export const missingMessage = (tool: Tool): string =>
  tool.fromVariable
    ? `${tool.variable}=${tool.command}: no such program — fix the path or unset ${tool.variable} to use ${tool.name} from PATH`
    : `${tool.name} not found on PATH — install ffmpeg (apt-get install ffmpeg, brew install ffmpeg) or set ${tool.variable} to its path`

export interface ToolOutput {
  readonly exitCode: number
  readonly stdout: Uint8Array
  readonly stderr: string
}

/** What each ffmpeg-backed operation (probe, frames, side streams) is handed by `Ffmpeg.make`. */
export interface ToolContext {
  readonly tools: FfmpegTools
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  /** Runs a tool to its end; `path` is the file named in an error. */
  readonly run: (tool: Tool, args: ReadonlyArray<string>, path: string) => Effect.Effect<ToolOutput, MediaError>
  /** A path as a tool argument: always absolute, so it never reads as an option or a protocol. */
  readonly arg: (path: string) => string
}

/** A MediaError whose message starts with the path as the user gave it. */
export const mediaError = (reason: MediaError["reason"], path: string, message: string): MediaError =>
  new MediaError({ reason, path, message: `${path}: ${message}` })

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
            : new MediaError({
              reason: "Failed",
              path,
              message: `${path}: could not run ${tool.command} (${error.message})`
            })
        ),
      BadArgument: (error) =>
        Effect.fail(
          new MediaError({
            reason: "Failed",
            path,
            message: `${path}: could not run ${tool.command} (${error.message})`
          })
        )
    })
  )

/** The last lines of a tool's stderr that say something, for an error message. */
export const lastErrorLine = (stderr: string): string => {
  const lines = stderr.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "")
  return lines.at(-1) ?? "no message"
}
