// Chat-completion replies read the way the openai adapters read them, without a server: for the unit tests
// of decoding and reading replies and streams.
import { Duration, Either, Option, Schema } from "effect"
import {
  ChatChunk,
  ChatReply,
  collectStream,
  decodeReply,
  readChatReply
} from "../../../src/layers/openai/OpenAiClient.js"

/** An endpoint that is never called; its model is what a reply without one reads as. */
export const endpoint = {
  provider: "llm",
  baseUrl: "http://127.0.0.1:1",
  apiKey: Option.none(),
  model: "configured",
  timeout: Duration.seconds(5)
}

/** A whole reply body: decoded, then read. */
export const readReply = (reply: unknown) =>
  Either.flatMap(decodeReply(ChatReply)(endpoint)(reply), (decoded) => readChatReply(endpoint, decoded))

/** Streamed chunk bodies (which must decode): folded into one reply, then read. */
export const readStream = (chunks: ReadonlyArray<unknown>) =>
  readChatReply(endpoint, collectStream(Either.getOrThrow(decodeReply(Schema.Array(ChatChunk))(endpoint)(chunks))))
