import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Context, Effect, Either, Layer } from "effect"
import { type MediaInfo, MediaError } from "../../domain/Media.js"
import { parseSubtitles } from "../../domain/SubtitleFormat.js"
import { type FrameRequest, FrameSource } from "../../services/FrameSource.js"
import { MediaProbe } from "../../services/MediaProbe.js"
import { firstFileNumber, framePassArgs, parseFramePass, reportsDamage } from "./FrameGraph.js"
import { parseProbe } from "./ProbeJson.js"
import { type FfmpegTools, lastErrorLine, runTool } from "./Tools.js"
import { loadFfmpegTools } from "../../config/FfmpegConfig.js"

export interface FfmpegOptions {
  /** ffmpeg's scene score above which a frame starts a new shot; 0.3 finds hard cuts, not pans. */
  readonly sceneThreshold?: number
  /** ffmpeg's JPEG quality scale, 2 (best) to 31. */
  readonly jpegQuality?: number
}

const framePrefix = "frame_"

const fail = (reason: MediaError["reason"], path: string, message: string) =>
  new MediaError({ reason, path, message: `${path}: ${message}` })

const seconds = (value: number) => `${value.toFixed(1)} s`

/** MediaProbe and FrameSource over the system ffprobe/ffmpeg (VTREE_FFPROBE / VTREE_FFMPEG override PATH). */
export const make = Effect.fn("Ffmpeg.make")(function*(tools: FfmpegTools, options: FfmpegOptions = {}) {
  const fs = yield* FileSystem.FileSystem
  const pathApi = yield* Path.Path
  const executor = yield* CommandExecutor.CommandExecutor
  const sceneThreshold = options.sceneThreshold ?? 0.3
  const jpegQuality = options.jpegQuality ?? 3

  const run = (tool: FfmpegTools["ffmpeg"], args: ReadonlyArray<string>, path: string) => runTool(executor, tool, args, path)
  // Every path handed to a tool is absolute: a file named "-report" or "-i" must not read as an
  // option, nor "concat:a|b" or "http:x" as a protocol. Messages keep the path as the user gave it.
  const arg = (path: string) => pathApi.resolve(path)

  // An MP4 whose index (moov) is missing still starts with its `ftyp` box: the end of the file was cut.
  const startsLikeMp4 = (path: string) =>
    Effect.scoped(
      Effect.gen(function*() {
        const file = yield* fs.open(path, { flag: "r" })
        const head = new Uint8Array(12)
        const read = yield* file.read(head)
        return Number(read) >= 8 && Buffer.from(head.subarray(4, 8)).toString("latin1") === "ftyp"
      })
    ).pipe(Effect.orElseSucceed(() => false))

  const probeFailure = Effect.fnUntraced(function*(path: string, stderr: string) {
    if (/moov atom not found/.test(stderr) && (yield* startsLikeMp4(path))) {
      return fail("Truncated", path, "the MP4 index (moov atom) is missing, so the file was cut short — download or copy it again")
    }
    if (/Permission denied/i.test(stderr)) return fail("Unreadable", path, "permission denied — make the file readable")
    return fail("NotMedia", path, `not a media file ffprobe can read (${lastErrorLine(stderr).replace(/^.*?: /, "")}) — check the file or convert it with ffmpeg`)
  })

  const probe = Effect.fn("MediaProbe.probe")(function*(path: string) {
    const stat = yield* fs.stat(path).pipe(
      Effect.mapError(() => fail("Unreadable", path, "no such file or it cannot be read — check the path"))
    )
    if (stat.type !== "File") return yield* fail("Unreadable", path, "not a file — give a video file")
    if (Number(stat.size) === 0) return yield* fail("Truncated", path, "the file is empty (0 bytes) — download or copy it again")
    const output = yield* run(
      tools.ffprobe,
      ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", arg(path)],
      path
    )
    if (output.exitCode !== 0) return yield* Effect.flatMap(probeFailure(path, output.stderr), Effect.fail)
    const parsed = parseProbe(Buffer.from(output.stdout).toString("utf8"), path, Number(stat.size))
    if (Either.isLeft(parsed)) {
      return yield* fail("Failed", path, `ffprobe's report could not be read (${parsed.left.split("\n")[0]}) — check the ffprobe install`)
    }
    return parsed.right
  })

  const videoStream = (info: MediaInfo) => {
    const stream = info.streams.find((candidate) => candidate.kind === "video")
    if (stream === undefined) {
      const audio = info.streams.some((candidate) => candidate.kind === "audio")
      return Effect.fail(
        fail("NoVideo", info.path, `${audio ? "an audio-only file" : "no video stream"} — vtree builds trees from video files`)
      )
    }
    if (!(info.durationSeconds > 0)) {
      return Effect.fail(fail("Truncated", info.path, "the video has no duration (no frames) — download or copy it again"))
    }
    return Effect.succeed(stream)
  }

  const removeFrames = (outDir: string) =>
    fs.readDirectory(outDir).pipe(
      Effect.flatMap((names) =>
        Effect.forEach(
          names.filter((name) => name.startsWith(framePrefix)),
          (name) => fs.remove(pathApi.join(outDir, name)),
          { discard: true }
        )
      ),
      Effect.ignore
    )

  const extract = Effect.fn("FrameSource.extract")(function*(request: FrameRequest) {
    const path = request.path
    const info = yield* probe(path)
    const stream = yield* videoStream(info)
    yield* fs.makeDirectory(request.outDir, { recursive: true }).pipe(
      Effect.mapError(() => fail("Failed", request.outDir, "cannot create the frames folder — check its permissions"))
    )
    const output = yield* run(
      tools.ffmpeg,
      framePassArgs({
        input: arg(path),
        streamIndex: stream.index,
        intervalSeconds: request.intervalSeconds,
        width: request.width,
        sceneThreshold,
        sceneWidth: 160,
        jpegQuality,
        // image2 reads "%" as the start of a number pattern, so one in the folder's name is doubled.
        outputPattern: pathApi.join(arg(request.outDir).replaceAll("%", "%%"), `${framePrefix}%06d.jpg`)
      }),
      path
    ).pipe(Effect.onInterrupt(() => removeFrames(request.outDir)))
    if (output.exitCode !== 0) {
      yield* removeFrames(request.outDir)
      const needsNewer = /Unrecognized option 'fps_mode'/.test(output.stderr)
      return yield* fail(
        "Failed",
        path,
        needsNewer
          ? "this ffmpeg is too old (vtree needs 5.1 or newer) — upgrade it or point VTREE_FFMPEG at a newer one"
          : `ffmpeg failed to decode it (${lastErrorLine(output.stderr)}) — check the file or re-encode it`
      )
    }
    const report = parseFramePass(output.stderr)
    const last = report.gridTimes.at(-1)
    // Refuse rather than build half a tree: a tree whose frames stop early answers questions about
    // the end of the video wrongly, and the user cannot tell. Early means more than one grid slot
    // short (a container duration can run a little past the last frame) while the decoder reported
    // damage: a variable-rate video may hold its last frame for a long time, and that is not a fault.
    const endsEarly = last !== undefined && last + request.intervalSeconds + 1 < info.durationSeconds
    if (last === undefined || (endsEarly && reportsDamage(output.stderr))) {
      yield* removeFrames(request.outDir)
      return yield* fail(
        "Truncated",
        path,
        last === undefined
          ? "no frame could be decoded — the file is damaged; download or copy it again"
          : `frames decode only up to ${seconds(last)} of ${seconds(info.durationSeconds)}: the file is truncated or damaged from there — download it again, or keep what plays with ffmpeg -i IN -c copy OUT`
      )
    }
    return {
      frames: report.gridTimes.map((timeSeconds, n) => ({
        timeSeconds,
        path: pathApi.join(request.outDir, `${framePrefix}${String(n + firstFileNumber).padStart(6, "0")}.jpg`)
      })),
      shotChanges: report.sceneTimes
    }
  })

  const subtitleStream = Effect.fn("MediaProbe.subtitleStream")(function*(path: string, streamIndex: number) {
    const output = yield* run(
      tools.ffmpeg,
      ["-hide_banner", "-nostdin", "-loglevel", "error", "-i", arg(path), "-map", `0:${streamIndex}`, "-f", "srt", "-"],
      path
    )
    if (output.exitCode !== 0) {
      const picture = /bitmap to bitmap|text to text/.test(output.stderr)
      return yield* fail(
        "Failed",
        path,
        picture
          ? `subtitle stream ${streamIndex} is pictures, not text — pass --subtitles FILE with a text subtitle file`
          : `could not read subtitle stream ${streamIndex} (${lastErrorLine(output.stderr)}) — pass --subtitles FILE instead`
      )
    }
    return yield* parseSubtitles(Buffer.from(output.stdout).toString("utf8"), {
      path: `${path}#${streamIndex}`,
      format: "srt"
    }).pipe(
      Effect.mapError((error) => fail("Failed", path, `subtitle stream ${streamIndex} is malformed (${error.message})`))
    )
  })

  const extractAudio = Effect.fn("MediaProbe.extractAudio")(function*(request: {
    readonly path: string
    readonly outFile: string
    readonly startSeconds: number
    readonly durationSeconds: number
  }) {
    const pcm = /\.wav$/i.test(request.outFile) ? ["-c:a", "pcm_s16le"] : []
    const output = yield* run(
      tools.ffmpeg,
      [
        "-hide_banner",
        "-nostdin",
        "-loglevel",
        "error",
        "-y",
        // Seeking before -i is exact for audio and skips decoding what comes before.
        "-ss",
        String(request.startSeconds),
        "-t",
        String(request.durationSeconds),
        "-i",
        arg(request.path),
        "-map",
        "0:a:0",
        "-vn",
        "-ac",
        "1",
        "-ar",
        "16000",
        ...pcm,
        arg(request.outFile)
      ],
      request.path
    )
    if (output.exitCode !== 0) {
      const noAudio = /matches no streams/.test(output.stderr)
      return yield* fail(
        "Failed",
        request.path,
        noAudio
          ? "no audio track to transcribe — pass --subtitles FILE or build without subtitles"
          : `could not extract audio (${lastErrorLine(output.stderr)}) — check the file or pass --subtitles FILE`
      )
    }
  })

  return {
    probe: MediaProbe.of({ probe, subtitleStream, extractAudio }),
    frames: FrameSource.of({ extract })
  }
})

/** Both ports from one set of tools; needs a FileSystem, a Path and a CommandExecutor (NodeContext). */
export const layerWith = (
  tools: FfmpegTools,
  options: FfmpegOptions = {}
): Layer.Layer<MediaProbe | FrameSource, never, FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor> =>
  Layer.effectContext(
    Effect.map(make(tools, options), ({ frames, probe }) =>
      Context.make(MediaProbe, probe).pipe(Context.add(FrameSource, frames)))
  )

/** Reads VTREE_FFMPEG / VTREE_FFPROBE (each defaults to the name on PATH). */
export const layer: Layer.Layer<
  MediaProbe | FrameSource,
  never,
  FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor
> = Layer.unwrapEffect(
  Effect.map(loadFfmpegTools, (tools) => layerWith(tools))
)
