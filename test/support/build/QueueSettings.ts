// A build's settings as the build queue stores and compares them, for the queue's store tests.
import type { BuildSettings } from "../../../src/domain/BuildRecord.js"

export const queueSettings: BuildSettings = {
  frameInterval: 2,
  frameWidth: 640,
  eventSeconds: 20,
  sceneSeconds: 300,
  framesPerCall: 12,
  vlmModel: "vlm",
  llmModel: "llm",
  prompts: "p",
  domain: null
}
