/** SpeechToText over an OpenAI-compatible transcription endpoint. */
export { layer, make } from "../../layers/openai/OpenAiSpeech.js"
