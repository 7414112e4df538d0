import type { FileSystem } from "@effect/platform/FileSystem"
import { Effect, Either } from "effect"
import type { MediaInfo } from "../../domain/Media.js"
import { parseProbe } from "./ProbeJson.js"
import { lastErrorLine, mediaError, type ToolContext } from "./Tools.js"

// An MP4 whose index (moov) is missing still starts with its `ftyp` box: the end of the file was cut.
const startsLikeMp4 = (fs: FileSystem, path: string) =>
  Effect.scoped(
    Effect.gen(function*() {
      const file = yield* fs.open(path, { flag: "r" })
      const head = new Uint8Array(12)
      const read = yield* file.read(head)
      return Number(read) >= 8 && Buffer.from(head.subarray(4, 8)).toString("latin1") === "ftyp"
    })
  ).pipe(Effect.orElseSucceed(() => false))

const probeFailure = Effect.fnUntraced(function*(fs: FileSystem, path: string, stderr: string) {
  if (/moov atom not found/.test(stderr) && (yield* startsLikeMp4(fs, path))) {
    return mediaError(
      "Truncated",
      path,
      "the MP4 index (moov atom) is missing, so the file was cut short — download or copy it again"
    )
  }
  if (/Permission denied/i.test(stderr)) {
    return mediaError("Unreadable", path, "permission denied — make the file readable")
  }
  return mediaError(
    "NotMedia",
    path,
    `not a media file ffprobe can read (${
      lastErrorLine(stderr).replace(/^.*?: /, "")
    }) — check the file or convert it with ffmpeg`
  )
})

/** `MediaProbe.probe`: the file's duration and streams from ffprobe, or why it cannot be read. */
export const probe = Effect.fn("Probe.probe")(function*(context: ToolContext, path: string) {
  const { arg, fs, run, tools } = context
  const stat = yield* fs.stat(path).pipe(
    Effect.mapError(() => mediaError("Unreadable", path, "no such file or it cannot be read — check the path"))
  )
  if (stat.type !== "File") return yield* mediaError("Unreadable", path, "not a file — give a video file")
  if (Number(stat.size) === 0) {
    return yield* mediaError("Truncated", path, "the file is empty (0 bytes) — download or copy it again")
  }
  const output = yield* run(
    tools.ffprobe,
    ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", arg(path)],
    path
  )
  if (output.exitCode !== 0) return yield* Effect.flatMap(probeFailure(fs, path, output.stderr), Effect.fail)
  const parsed = parseProbe(Buffer.from(output.stdout).toString("utf8"), path, Number(stat.size))
  if (Either.isLeft(parsed)) {
    return yield* mediaError(
      "Failed",
      path,
      `ffprobe's report could not be read (${parsed.left.split("\n")[0]}) — check the ffprobe install`
    )
  }
  return parsed.right
})

/** The first video stream of a probed file, refused when there is none or it holds no frames. */
export const videoStream = (info: MediaInfo) => {
  const stream = info.streams.find((candidate) => candidate.kind === "video")
  if (stream === undefined) {
    const audio = info.streams.some((candidate) => candidate.kind === "audio")
    return Effect.fail(
      mediaError(
        "NoVideo",
        info.path,
        `${audio ? "an audio-only file" : "no video stream"} — vtree builds trees from video files`
      )
    )
  }
  if (!(info.durationSeconds > 0)) {
    return Effect.fail(
      mediaError("Truncated", info.path, "the video has no duration (no frames) — download or copy it again")
    )
  }
  return Effect.succeed(stream)
}
