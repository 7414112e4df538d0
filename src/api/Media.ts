/** The media ports the builder runs on (adapters: `Ffmpeg`, `OpenAiSpeech`) and their data. */
export {
  type ExtractedFrame,
  MediaError,
  MediaErrorReason,
  type MediaInfo,
  type SubtitleCue,
  SubtitleError,
  SubtitleErrorReason
} from "../domain/Media.js"
export { type FrameExtraction, type FrameRequest, FrameSource } from "../services/FrameSource.js"
export { MediaProbe } from "../services/MediaProbe.js"
export { SpeechToText } from "../services/SpeechToText.js"
