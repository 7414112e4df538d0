// What every worker of a queued build (`vtree build --db`) must share, and how a worker that differs is told:
// the settings a tree depends on (hashed and stored with the build), and the video set (its ids hashed).
import type { BuildSettings } from "../../domain/BuildRecord.js"
import type { BuildPrompts } from "./BuildPrompts.js"
import { sha256 } from "./Checkpoint.js"
import type { BuildParameters } from "./Plan.js"

/** The settings of this worker, as stored with the build. */
export const buildSettings = (input: {
  readonly parameters: BuildParameters
  readonly models: { readonly vlm: string; readonly llm: string }
  readonly prompts: BuildPrompts
  readonly domain: string | undefined
}): BuildSettings => ({
  ...input.parameters,
  vlmModel: input.models.vlm,
  llmModel: input.models.llm,
  prompts: sha256(JSON.stringify([input.prompts.event, input.prompts.scene])),
  domain: input.domain ?? null
})

const order: ReadonlyArray<keyof BuildSettings> = [
  "frameInterval",
  "frameWidth",
  "eventSeconds",
  "sceneSeconds",
  "framesPerCall",
  "vlmModel",
  "llmModel",
  "prompts",
  "domain"
]

/** The hash stored with the build: over the settings in a fixed order, so key order never matters. */
export const settingsHash = (settings: BuildSettings): string =>
  sha256(JSON.stringify(order.map((key) => [key, settings[key]])))

/** Where each setting comes from, as a person would change it. */
const sources: Record<keyof BuildSettings, string> = {
  frameInterval: "--frame-interval",
  frameWidth: "--frame-width",
  eventSeconds: "--event-seconds",
  sceneSeconds: "--scene-seconds",
  framesPerCall: "--frames-per-call",
  vlmModel: "VTREE_VLM_MODEL",
  llmModel: "VTREE_TOOL_LLM_MODEL (or VTREE_LLM_MODEL)",
  prompts: "--prompts (the text of build_event.md / build_scene.md)",
  domain: "--domain"
}

const shown = (key: keyof BuildSettings, value: string | number | null): string =>
  key === "prompts" && typeof value === "string"
    ? `sha256 ${value.slice(0, 12)}`
    : value === null
    ? "(none)"
    : String(value)

/** The settings that differ, each as `<flag>: the build's X, this worker's Y`; empty when none do. */
export const settingsDifference = (stored: BuildSettings, given: BuildSettings): ReadonlyArray<string> =>
  order.filter((key) => stored[key] !== given[key]).map((key) =>
    `${sources[key]}: the build's ${shown(key, stored[key])}, this worker's ${shown(key, given[key])}`
  )

/** The identity of a build's video set: its ids, sorted, hashed. */
export const videosHash = (videoIds: ReadonlyArray<string>): string => sha256(JSON.stringify([...videoIds].sort()))

/** A build's id when --build-id is left out: from its video set, so workers given the same videos meet in one build. */
export const defaultBuildId = (hash: string): string => `build-${hash.slice(0, 12)}`
