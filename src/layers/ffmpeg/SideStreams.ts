import { Effect } from "effect"
import { parseSubtitles } from "../../domain/SubtitleFormat.js"
import { lastErrorLine, mediaError, type ToolContext } from "./Tools.js"

/** `MediaProbe.subtitleStream`: one embedded text subtitle stream, converted to SRT and parsed. */
export const subtitleStream = Effect.fn("SideStreams.subtitleStream")(function*(
  { arg, run, tools }: ToolContext,
  path: string,
  streamIndex: number
) {
  const output = yield* run(
    tools.ffmpeg,
    ["-hide_banner", "-nostdin", "-loglevel", "error", "-i", arg(path), "-map", `0:${streamIndex}`, "-f", "srt", "-"],
    path
  )
  if (output.exitCode !== 0) {
    const picture = /bitmap to bitmap|text to text/.test(output.stderr)
    return yield* mediaError(
      "Failed",
      path,
      picture
        ? `subtitle stream ${streamIndex} is pictures, not text — pass --subtitles FILE with a text subtitle file`
        : `could not read subtitle stream ${streamIndex} (${
          lastErrorLine(output.stderr)
        }) — pass --subtitles FILE instead`
    )
  }
  return yield* parseSubtitles(Buffer.from(output.stdout).toString("utf8"), {
    path: `${path}#${streamIndex}`,
    format: "srt"
  }).pipe(
    Effect.mapError((error) =>
      mediaError("Failed", path, `subtitle stream ${streamIndex} is malformed (${error.message})`)
    )
  )
})

/** `MediaProbe.extractAudio`: a span of the first audio stream as mono 16 kHz (PCM when the file is .wav). */
export const extractAudio = Effect.fn("SideStreams.extractAudio")(function*(
  { arg, run, tools }: ToolContext,
  request: {
    readonly path: string
    readonly outFile: string
    readonly startSeconds: number
    readonly durationSeconds: number
  }
) {
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
    return yield* mediaError(
      "Failed",
      request.path,
      noAudio
        ? "no audio track to transcribe — pass --subtitles FILE or build without subtitles"
        : `could not extract audio (${lastErrorLine(output.stderr)}) — check the file or pass --subtitles FILE`
    )
  }
})
