import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect } from "effect"
import { MediaError, type SubtitleCue } from "../../domain/Media.js"
import { speakerLabel } from "../../domain/SubtitleFormat.js"
import { MediaProbe } from "../../services/MediaProbe.js"
import { SpeechToText } from "../../services/SpeechToText.js"

/** 16 kHz mono 16-bit PCM, the WAV the audio is extracted as. */
export const pcmBytesPerSecond = 32_000
const wavHeaderBytes = 44

export interface AudioSpan {
  readonly startSeconds: number
  readonly durationSeconds: number
}

/**
 * Cuts `[0, durationSeconds)` into consecutive spans whose WAV files each stay under `maxUploadBytes`
 * (header and a 1 % margin included), all of one length but the last.
 */
export const audioChunks = (
  durationSeconds: number,
  maxUploadBytes: number,
  bytesPerSecond: number = pcmBytesPerSecond
): ReadonlyArray<AudioSpan> => {
  const usable = Math.floor(maxUploadBytes * 0.99) - wavHeaderBytes
  // Whole seconds keep the shifted segment times readable; at least one second per request.
  const chunkSeconds = Math.max(1, Math.floor(usable / bytesPerSecond))
  const spans: Array<AudioSpan> = []
  for (let start = 0; start < durationSeconds; start += chunkSeconds) {
    spans.push({ startSeconds: start, durationSeconds: Math.min(chunkSeconds, durationSeconds - start) })
  }
  return spans
}

/** Segment times of one chunk moved onto the video's clock, clipped to the chunk; speakers kept. */
export const shiftCues = (cues: ReadonlyArray<SubtitleCue>, span: AudioSpan): ReadonlyArray<SubtitleCue> =>
  cues.flatMap((cue) => {
    const start = span.startSeconds + Math.max(0, cue.start)
    const end = span.startSeconds + Math.min(span.durationSeconds, cue.end)
    const text = cue.text.trim()
    const speaker = cue.speaker === undefined ? {} : { speaker: cue.speaker }
    return text === "" || end <= start ? [] : [{ start, end, text, ...speaker }]
  })

// The labels a diarizing server makes up ("A", "SPEAKER_00", "speaker_1", "spk2", "3"), as opposed to a name.
const madeUpLabel = /^(?:speaker|spk|s)?[\s_-]*(?:[a-z]|\d+)$/i

/**
 * Cues with their speaker written into the text, as every reader of subtitles then sees it: `[S1] …`.
 * Made-up labels become S1, S2, … in the order they first speak (the same label in every chunk is taken
 * as the same voice); a name a server was given stays, without brackets or line breaks, cut to 40
 * characters. Cues without a speaker are left as they are.
 */
export const labelSpeakers = (cues: ReadonlyArray<SubtitleCue>): ReadonlyArray<SubtitleCue> => {
  const numbers = new Map<string, number>()
  return cues.map(({ speaker, ...cue }) => {
    if (speaker === undefined) return cue
    let label = speakerLabel(speaker)
    if (madeUpLabel.test(speaker)) {
      if (!numbers.has(speaker)) numbers.set(speaker, numbers.size + 1)
      label = `S${numbers.get(speaker)}`
    }
    return label === "" ? cue : { ...cue, text: `[${label}] ${cue.text}` }
  })
}

/**
 * Speech to cues for a whole video: the audio is extracted chunk by chunk under the endpoint's upload
 * limit (into a temporary folder removed afterwards), each chunk transcribed, its times shifted, the
 * speakers a diarizing endpoint names written into the text.
 * Chunks run one after another: a long video is a queue of uploads an endpoint would throttle anyway.
 */
export const transcribeVideo = Effect.fn("Transcription.transcribeVideo")(function*(
  video: string,
  durationSeconds: number
) {
  const speech = yield* SpeechToText
  const media = yield* MediaProbe
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = yield* fs.makeTempDirectoryScoped({ prefix: "vtree-asr-" }).pipe(
    Effect.mapError(() =>
      new MediaError({
        reason: "Failed",
        path: video,
        message: `${video}: cannot create a temporary folder for its audio — check TMPDIR`
      })
    )
  )
  const spans = audioChunks(durationSeconds, speech.maxUploadBytes)
  const parts = yield* Effect.forEach(spans, (span, i) =>
    Effect.gen(function*() {
      const outFile = path.join(dir, `chunk-${String(i).padStart(4, "0")}.wav`)
      yield* media.extractAudio({ path: video, outFile, ...span })
      const cues = yield* speech.transcribe(outFile)
      yield* fs.remove(outFile).pipe(Effect.ignore)
      return shiftCues(cues, span)
    }))
  return labelSpeakers(parts.flat())
}, Effect.scoped)
