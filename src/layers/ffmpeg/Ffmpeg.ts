import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Context, Effect, Layer } from "effect"
import { loadFfmpegTools } from "../../config/FfmpegConfig.js"
import { type FfmpegTools } from "../../config/FfmpegConfig.js"
import { FrameSource } from "../../services/FrameSource.js"
import { MediaProbe } from "../../services/MediaProbe.js"
import { extract } from "./Frames.js"
import { probe } from "./Probe.js"
import { extractAudio, subtitleStream } from "./SideStreams.js"
import { runTool, type ToolContext } from "./Tools.js"

export interface FfmpegOptions {
  /** ffmpeg's scene score above which a frame starts a new shot; 0.3 finds hard cuts, not pans. */
  readonly sceneThreshold?: number
  /** ffmpeg's JPEG quality scale, 2 (best) to 31. */
  readonly jpegQuality?: number
}

/** MediaProbe and FrameSource over the system ffprobe/ffmpeg (VTREE_FFPROBE / VTREE_FFMPEG override PATH). */
export const make = Effect.fn("Ffmpeg.make")(function*(tools: FfmpegTools, options: FfmpegOptions = {}) {
  const fs = yield* FileSystem.FileSystem
  const pathApi = yield* Path.Path
  const executor = yield* CommandExecutor.CommandExecutor
  const context: ToolContext = {
    tools,
    fs,
    path: pathApi,
    run: (tool, args, path) => runTool(executor, tool, args, path),
    // Every path handed to a tool is absolute: a file named "-report" or "-i" must not read as an
    // option, nor "concat:a|b" or "http:x" as a protocol. Messages keep the path as the user gave it.
    arg: (path) => pathApi.resolve(path)
  }
  const settings = { sceneThreshold: options.sceneThreshold ?? 0.3, jpegQuality: options.jpegQuality ?? 3 }
  return {
    probe: MediaProbe.of({
      probe: (path) => probe(context, path),
      subtitleStream: (path, streamIndex) => subtitleStream(context, path, streamIndex),
      extractAudio: (request) => extractAudio(context, request)
    }),
    frames: FrameSource.of({ extract: (request) => extract(context, settings, request) })
  }
})

/** Both ports from one set of tools; needs a FileSystem, a Path and a CommandExecutor (NodeContext). */
export const layer = (
  tools: FfmpegTools,
  options: FfmpegOptions = {}
): Layer.Layer<MediaProbe | FrameSource, never, FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor> =>
  Layer.effectContext(
    Effect.map(
      make(tools, options),
      ({ frames, probe }) => Context.make(MediaProbe, probe).pipe(Context.add(FrameSource, frames))
    )
  )

/** Reads VTREE_FFMPEG / VTREE_FFPROBE (each defaults to the name on PATH). */
export const layerConfig: Layer.Layer<
  MediaProbe | FrameSource,
  never,
  FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> = Layer.unwrapEffect(
  Effect.map(loadFfmpegTools, (tools) => layer(tools))
)
