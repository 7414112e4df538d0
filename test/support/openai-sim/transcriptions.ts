/**
 * openai-sim's `POST /v1/audio/transcriptions`: a multipart upload (file, model, response_format,
 * timestamp_granularities[]) answered in the `verbose_json` shape, with scripted segments or, without
 * a script, deterministic ones derived from the uploaded WAV's length.
 */

export interface TranscriptionSegment {
  readonly start: number
  readonly end: number
  readonly text: string
  /** A diarizing server's label for who speaks, sent on the segment as `speaker`. */
  readonly speaker?: string | number
}

export interface TranscriptionReply {
  /** Omitted → one segment per `segmentSeconds` of the uploaded audio. */
  readonly segments?: ReadonlyArray<TranscriptionSegment>
  readonly segmentSeconds?: number
  /** Answer after this many milliseconds (real time). */
  readonly delayMs?: number
}

export interface TranscriptionUpload {
  /** Form fields other than the file. */
  readonly fields: Record<string, string | ReadonlyArray<string>>
  readonly fileName: string
  readonly fileBytes: Uint8Array
}

/** Reads the multipart body with the platform's own form-data parser (undici's, behind Response). */
export const readUpload = async (raw: Buffer, contentType: string): Promise<TranscriptionUpload> => {
  const form = await new Response(raw, { headers: { "content-type": contentType } }).formData()
  const fields: Record<string, string | Array<string>> = {}
  let fileName = ""
  let fileBytes = new Uint8Array()
  for (const [name, value] of form.entries()) {
    if (typeof value !== "string") {
      fileName = value.name
      fileBytes = new Uint8Array(await value.arrayBuffer())
      continue
    }
    const existing = fields[name]
    fields[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value]
  }
  return { fields, fileName, fileBytes }
}

/** Seconds of audio in a PCM WAV file (byte rate from the header), or 0 when it is not one. */
export const wavSeconds = (bytes: Uint8Array): number => {
  if (bytes.length < 44) return 0
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4))
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") return 0
  const byteRate = view.getUint32(28, true)
  // Walk the chunks to `data`: ffmpeg may write a LIST chunk before it.
  for (let at = 12; at + 8 <= bytes.length;) {
    const size = view.getUint32(at + 4, true)
    if (tag(at) === "data") return byteRate > 0 ? Math.min(size, bytes.length - at - 8) / byteRate : 0
    at += 8 + size + (size % 2)
  }
  return 0
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000

/** The segments an unscripted request gets: `segment i of NAME` every `segmentSeconds`. */
export const deterministicSegments = (upload: TranscriptionUpload, segmentSeconds = 5): Array<TranscriptionSegment> => {
  const duration = wavSeconds(upload.fileBytes)
  const segments: Array<TranscriptionSegment> = []
  for (let start = 0, i = 0; start < duration; start += segmentSeconds, i++) {
    segments.push({
      start: round(start),
      end: round(Math.min(duration, start + segmentSeconds)),
      text: ` segment ${i} of ${upload.fileName}`
    })
  }
  return segments
}

/** The reply body for `response_format`: verbose_json (with segments), json or text. */
export const transcriptionBody = (
  upload: TranscriptionUpload,
  segments: ReadonlyArray<TranscriptionSegment>
): { readonly contentType: string; readonly text: string } => {
  const text = segments.map((segment) => segment.text.trim()).join(" ")
  const format = upload.fields["response_format"] ?? "json"
  if (format === "text") return { contentType: "text/plain", text }
  if (format !== "verbose_json") return { contentType: "application/json", text: JSON.stringify({ text }) }
  return {
    contentType: "application/json",
    text: JSON.stringify({
      task: "transcribe",
      language: "english",
      duration: wavSeconds(upload.fileBytes),
      text,
      segments: segments.map((segment, id) => ({
        id,
        seek: 0,
        start: segment.start,
        end: segment.end,
        text: segment.text,
        ...(segment.speaker === undefined ? {} : { speaker: segment.speaker }),
        tokens: [],
        temperature: 0,
        avg_logprob: -0.2,
        compression_ratio: 1.2,
        no_speech_prob: 0.01
      }))
    })
  }
}
