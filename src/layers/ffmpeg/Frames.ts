import { Effect } from "effect"
import type { FrameRequest } from "../../services/FrameSource.js"
import { damagedSpans, firstFileNumber, framePassArgs, lookBytes, parseFramePass } from "./FrameGraph.js"
import { probe, videoStream } from "./Probe.js"
import { lastErrorLine, mediaError, type ToolContext } from "./Tools.js"

/** The encoder settings of the frame pass (defaults in `Ffmpeg.make`). */
export interface FrameSettings {
  readonly sceneThreshold: number
  readonly jpegQuality: number
}

const framePrefix = "frame_"
const looksName = "looks.rgb"

const seconds = (value: number) => `${value.toFixed(1)} s`

const removeFrames = ({ fs, path }: ToolContext, outDir: string) =>
  fs.readDirectory(outDir).pipe(
    Effect.flatMap((names) =>
      Effect.forEach(
        names.filter((name) => name.startsWith(framePrefix) || name === looksName),
        (name) => fs.remove(path.join(outDir, name)),
        { discard: true }
      )
    ),
    Effect.ignore
  )

/** `FrameSource.extract`: grid frames and shot changes in one ffmpeg pass; no half result is kept. */
export const extract = Effect.fn("Frames.extract")(function*(
  context: ToolContext,
  settings: FrameSettings,
  request: FrameRequest
) {
  const { arg, fs, run, tools } = context
  const path = request.path
  const info = yield* probe(context, path)
  const stream = yield* videoStream(info)
  yield* fs.makeDirectory(request.outDir, { recursive: true }).pipe(
    Effect.mapError(() =>
      mediaError("Failed", request.outDir, "cannot create the frames folder — check its permissions")
    )
  )
  const output = yield* run(
    tools.ffmpeg,
    framePassArgs({
      input: arg(path),
      streamIndex: stream.index,
      intervalSeconds: request.intervalSeconds,
      width: request.width,
      sceneThreshold: settings.sceneThreshold,
      sceneWidth: 160,
      jpegQuality: settings.jpegQuality,
      // image2 reads "%" as the start of a number pattern, so one in the folder's name is doubled.
      outputPattern: context.path.join(arg(request.outDir).replaceAll("%", "%%"), `${framePrefix}%06d.jpg`),
      looksFile: context.path.join(arg(request.outDir), looksName)
    }),
    path
  ).pipe(Effect.onInterrupt(() => removeFrames(context, request.outDir)))
  if (output.exitCode !== 0) {
    yield* removeFrames(context, request.outDir)
    const needsNewer = /Unrecognized option 'fps_mode'/.test(output.stderr)
    return yield* mediaError(
      "Failed",
      path,
      needsNewer
        ? "this ffmpeg is too old (vtree needs 5.1 or newer) — upgrade it or point VTREE_FFMPEG at a newer one"
        : `ffmpeg failed to decode it (${lastErrorLine(output.stderr)}) — check the file or re-encode it`
    )
  }
  const report = parseFramePass(output.stderr)
  const looksFile = context.path.join(request.outDir, looksName)
  // The looks only guide scene cuts: a file that cannot be read leaves the frames without them.
  const looks = yield* fs.readFile(looksFile).pipe(Effect.orElseSucceed(() => new Uint8Array()))
  yield* fs.remove(looksFile).pipe(Effect.ignore)
  const lookOf = (n: number) =>
    looks.length === report.gridTimes.length * lookBytes
      ? { look: Buffer.from(looks.subarray(n * lookBytes, (n + 1) * lookBytes)).toString("base64") }
      : {}
  const last = report.gridTimes.at(-1)
  // Refuse rather than build half a tree: a tree whose frames stop early answers questions about
  // the end of the video wrongly, and the user cannot tell. Early means more than one grid slot
  // short (a container duration can run a little past the last frame) while the decoder reported
  // damage: a variable-rate video may hold its last frame for a long time, and that is not a fault.
  const endsEarly = last !== undefined && last + request.intervalSeconds + 1 < info.durationSeconds
  if (last === undefined || (endsEarly && report.damage.length > 0)) {
    yield* removeFrames(context, request.outDir)
    return yield* mediaError(
      "Truncated",
      path,
      last === undefined
        ? "no frame could be decoded — the file is damaged; download or copy it again"
        : `frames decode only up to ${seconds(last)} of ${
          seconds(info.durationSeconds)
        }: the file is truncated or damaged from there — download it again, or keep what plays with ffmpeg -i IN -c copy OUT`
    )
  }
  return {
    frames: report.gridTimes.map((timeSeconds, n) => ({
      timeSeconds,
      path: context.path.join(request.outDir, `${framePrefix}${String(n + firstFileNumber).padStart(6, "0")}.jpg`),
      ...lookOf(n)
    })),
    shotChanges: report.sceneTimes,
    // A hole or a smear in the middle is kept and reported: the rest of the video is worth a tree.
    damaged: damagedSpans(report, {
      intervalSeconds: request.intervalSeconds,
      durationSeconds: info.durationSeconds,
      input: arg(path)
    })
  }
})
