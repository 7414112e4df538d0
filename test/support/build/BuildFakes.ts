// Fakes of the builder's media ports for tests without ffmpeg: a video is a description (duration,
// shot cuts); "extracting" writes a small real JPEG per grid time, coloured by the shot it falls in,
// so checkpoint keys hash real bytes and a changed shot changes them.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Layer, Ref } from "effect"
import jpeg from "jpeg-js"
import { MediaError, type MediaInfo } from "../../../src/domain/Media.js"
import { FrameSource } from "../../../src/services/FrameSource.js"
import type { ChatRequest } from "../../../src/services/LLMProvider.js"
import { MediaProbe } from "../../../src/services/MediaProbe.js"
import type { VisionRequest } from "../../../src/services/VLMProvider.js"
import { buildCallKind, eventReply, registryReply, sceneReply } from "../openai-sim/builder.js"

export interface FakeVideo {
  readonly durationSeconds: number
  /** Shot changes, seconds. */
  readonly cuts?: ReadonlyArray<number>
  readonly audioOnly?: boolean
  /** Added to every frame time: real decoders land near, not on, the grid. */
  readonly jitter?: number
}

const palette = [[200, 40, 40], [40, 160, 60], [40, 60, 200], [220, 200, 40], [150, 50, 160], [30, 170, 170]]

// jpeg-js sets up its tables on every encode (tens of milliseconds): one image per colour, made once.
const encoded = new Map<string, Uint8Array>()

export const tinyJpeg = (rgb: ReadonlyArray<number>, width = 16, height = 9): Uint8Array => {
  const key = `${rgb.join(",")}/${width}x${height}`
  const cached = encoded.get(key)
  if (cached !== undefined) return cached
  const data = Buffer.alloc(width * height * 4)
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = rgb[0]!
    data[i * 4 + 1] = rgb[1]!
    data[i * 4 + 2] = rgb[2]!
    data[i * 4 + 3] = 255
  }
  const bytes = new Uint8Array(jpeg.encode({ data, width, height }, 80).data)
  encoded.set(key, bytes)
  return bytes
}

/** MediaProbe + FrameSource over described videos, keyed by path; counts extractions. */
export const makeFakeMedia = (videos: Readonly<Record<string, FakeVideo>>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const extractions = yield* Ref.make(0)
    const find = (path: string) => {
      const key = Object.keys(videos).find((name) => path.endsWith(name))
      return key === undefined
        ? Effect.fail(
          new MediaError({
            reason: "NotMedia",
            path,
            message: `${path}: not a video file ffprobe can read — pass a video file`
          })
        )
        : Effect.succeed(videos[key]!)
    }
    const probe = MediaProbe.of({
      probe: (path) =>
        Effect.map(find(path), (video): MediaInfo => ({
          path,
          sizeBytes: 1234,
          durationSeconds: video.durationSeconds,
          width: video.audioOnly === true ? undefined : 1280,
          height: video.audioOnly === true ? undefined : 720,
          streams: video.audioOnly === true
            ? [{ index: 0, kind: "audio", codec: "aac" }]
            : [{ index: 0, kind: "video", codec: "h264" }, { index: 1, kind: "audio", codec: "aac" }]
        })),
      subtitleStream: () => Effect.succeed([]),
      extractAudio: () => Effect.void
    })
    const frames = FrameSource.of({
      extract: (request) =>
        Effect.gen(function*() {
          const video = yield* find(request.path)
          yield* Ref.update(extractions, (n) => n + 1)
          const cuts = video.cuts ?? []
          const out = []
          for (let k = 0; k * request.intervalSeconds < video.durationSeconds; k++) {
            const time = Math.round((k * request.intervalSeconds + (k > 0 ? video.jitter ?? 0 : 0)) * 1000) / 1000
            const shot = cuts.filter((cut) => cut <= time).length
            const file = path.join(request.outDir, `f-${String(k).padStart(5, "0")}.jpg`)
            yield* fs.writeFile(file, tinyJpeg(palette[shot % palette.length]!)).pipe(Effect.orDie)
            out.push({ timeSeconds: time, path: file })
          }
          return { frames: out, shotChanges: cuts, damaged: [] }
        })
    })
    return {
      layer: Layer.mergeAll(Layer.succeed(MediaProbe, probe), Layer.succeed(FrameSource, frames)),
      extractions: Ref.get(extractions)
    }
  })

/** A scripted-VLM script answering every event call like the simulator does. */
export const vlmCards = (request: VisionRequest): string => eventReply(request.text)

/** A scripted-LLM script answering every scene (and entity registry) call like the simulator does. */
export const llmCards = (request: ChatRequest): string => {
  const user = request.messages.at(-1)?.content ?? ""
  return buildCallKind(request.messages[0]?.content ?? "") === "registry" ? registryReply(user) : sceneReply(user)
}
