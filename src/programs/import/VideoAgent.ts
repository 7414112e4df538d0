/**
 * VideoAgent's caption folders. `<video>_cap.json` holds `{"<second>": caption}` for one video; the
 * memory layout holds `{"<startFrame>_<endFrame>": caption}`, frame indices turned into seconds with
 * the video's frame rate (--fps, or probed from --videos).
 */
import { Either } from "effect"
import * as Imported from "./ImportedVideo.js"
import { perSecondCaptions } from "./Llovi.js"

/** The suffix naming VideoAgent's per-video Imported.caption files. */
export const captionFileSuffix = "_cap.json"

/** `abc_cap.json` → `abc`. */
export const videoAgentId = (file: string): string => {
  const base = file.split(/[\\/]/).pop() ?? file
  return base.endsWith(captionFileSuffix) ? base.slice(0, -captionFileSuffix.length) : base.replace(/\.json$/i, "")
}

export const readVideoAgent = (
  file: string,
  json: unknown,
  sourceId = videoAgentId(file)
): Imported.VideosRead => {
  if (!Imported.isRecord(json)) {
    return Either.left(Imported.badInput(file, "", "expected an object {\"<second>\": caption}"))
  }
  return Either.flatMap(
    perSecondCaptions(file, [], json),
    (captions) => Either.map(Imported.importedVideo(file, "", sourceId, captions), (video) => [video])
  )
}

/** `"120_180"` → [120, 180]; undefined when the key is not two frame numbers. */
export const frameSpanKey = (key: string): readonly [number, number] | undefined => {
  const parts = key.split("_")
  if (parts.length !== 2) return undefined
  const start = Imported.numericKey(parts[0]!)
  const end = Imported.numericKey(parts[1]!)
  return start === undefined || end === undefined ? undefined : [start, end]
}

export const readVideoAgentMemory = (
  file: string,
  json: unknown,
  sourceId: string,
  fps: number | undefined
): Imported.VideosRead => {
  if (!Imported.isRecord(json)) {
    return Either.left(Imported.badInput(file, "", "expected an object {\"<startFrame>_<endFrame>\": caption}"))
  }
  if (fps === undefined) {
    return Either.left(
      new Imported.TreeImportError({
        reason: "BadOption",
        message:
          `${file}: keys are frame numbers and the frame rate of video "${sourceId}" is unknown — pass --fps N, or --videos DIR holding ${sourceId}.<ext>`
      })
    )
  }
  const captions: Array<Imported.ImportedCaption> = []
  for (const key in json) {
    const span = frameSpanKey(key)
    if (span === undefined) {
      return Either.left(Imported.badInput(file, key, "expected a key \"<startFrame>_<endFrame>\" (\"0_30\")"))
    }
    const text = Imported.captionText(file, key, json[key])
    if (Either.isLeft(text)) return Either.left(text.left)
    const made = Imported.caption(file, key, span[0] / fps, span[1] / fps, text.right)
    if (Either.isLeft(made)) return Either.left(made.left)
    captions.push(made.right)
  }
  return Either.map(Imported.importedVideo(file, "", sourceId, captions), (video) => [video])
}
