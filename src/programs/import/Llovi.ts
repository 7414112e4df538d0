/**
 * LLoVi's caption files: `{uid: [caption, …]}`, one caption a second (the LaViLa and BLIP-2 EgoSchema
 * sets, e.g. `lavila_subset.json`), and `{uid: {"<second>": caption}}` (NExT-QA's `llava1.5_fps1.json`).
 * Both shapes may sit in one file. Caption i describes the second [i, i + 1).
 */
import { Either } from "effect"
import { formatPath } from "../../domain/DecodeIssue.js"
import * as Imported from "./ImportedVideo.js"

/** `{"<second>": caption}` (also VideoAgent's `<video>_cap.json`) as one-second captions. */
export const perSecondCaptions = (
  file: string,
  at: ReadonlyArray<string>,
  value: Readonly<Record<string, unknown>>
): Either.Either<Array<Imported.ImportedCaption>, Imported.TreeImportError> => {
  const captions: Array<Imported.ImportedCaption> = []
  for (const key in value) {
    const second = Imported.numericKey(key)
    const where = formatPath([...at, key])
    if (second === undefined) {
      return Either.left(Imported.badInput(file, where, "expected a number of seconds as the key (\"12\")"))
    }
    const text = Imported.captionText(file, where, value[key])
    if (Either.isLeft(text)) return Either.left(text.left)
    const made = Imported.caption(file, where, second, second + 1, text.right)
    if (Either.isLeft(made)) return Either.left(made.left)
    captions.push(made.right)
  }
  return Either.right(captions)
}

export const readLlovi = (file: string, json: unknown): Imported.VideosRead => {
  if (!Imported.isRecord(json)) {
    return Either.left(Imported.badInput(file, "", "expected an object mapping video ids to captions"))
  }
  const videos: Array<Imported.ImportedVideo> = []
  for (const uid in json) {
    const value = json[uid]
    let captions: Array<Imported.ImportedCaption>
    if (Array.isArray(value)) {
      captions = []
      for (let i = 0; i < value.length; i++) {
        const where = formatPath([uid, i])
        const text = Imported.captionText(file, where, value[i])
        if (Either.isLeft(text)) return Either.left(text.left)
        const made = Imported.caption(file, where, i, i + 1, text.right)
        if (Either.isLeft(made)) return Either.left(made.left)
        captions.push(made.right)
      }
    } else if (Imported.isRecord(value)) {
      const read = perSecondCaptions(file, [uid], value)
      if (Either.isLeft(read)) return Either.left(read.left)
      captions = read.right
    } else {
      return Either.left(
        Imported.badInput(file, uid, "expected a list of captions (one a second) or an object {\"<second>\": caption}")
      )
    }
    const video = Imported.importedVideo(file, uid, uid, captions)
    if (Either.isLeft(video)) return Either.left(video.left)
    videos.push(video.right)
  }
  return Either.right(videos)
}
