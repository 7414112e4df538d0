// The records of a build queue (`vtree build --db`): what every worker of a build must share (its settings),
// the build as stored, and where it stands. The port is services/BuildQueue.ts; the SQL is
// layers/sql/BuildQueueRepository.ts. Times are epoch milliseconds of the database's clock.
import { Schema } from "effect"

/** What a tree depends on besides its video: a worker with other settings would build trees unlike its siblings'. */
export const BuildSettings = Schema.Struct({
  frameInterval: Schema.Number,
  frameWidth: Schema.Number,
  eventSeconds: Schema.Number,
  sceneSeconds: Schema.Number,
  framesPerCall: Schema.Number,
  /** The vision model and the text (tool) model, as the checkpoints are keyed by them. */
  vlmModel: Schema.String,
  llmModel: Schema.String,
  /** sha256 of the event and scene prompts (their text, not where they were read from). */
  prompts: Schema.String,
  /** `--domain`, or null. */
  domain: Schema.NullOr(Schema.String)
})
export type BuildSettings = typeof BuildSettings.Type

/** A build as stored: its settings (and their hash) and its video set (hash of the ids, and count). */
export const BuildRow = Schema.Struct({
  buildId: Schema.String,
  startedAt: Schema.Number,
  settingsHash: Schema.String,
  settings: BuildSettings,
  videosHash: Schema.String,
  videoCount: Schema.Number
})
export type BuildRow = typeof BuildRow.Type

/** Where a build stands, counted by the database: videos and hours done, failed, and being built under a live lease. */
export const BuildProgress = Schema.Struct({
  buildId: Schema.String,
  startedAt: Schema.Number,
  videos: Schema.Number,
  done: Schema.Number,
  failed: Schema.Number,
  /** Open videos held under a lease that has not lapsed. */
  building: Schema.Number,
  /** Distinct workers holding those leases. */
  workers: Schema.Number,
  totalSeconds: Schema.Number,
  doneSeconds: Schema.Number,
  /** When the last video was finished (done or failed), or null. */
  lastFinishedAt: Schema.NullOr(Schema.Number)
})
export type BuildProgress = typeof BuildProgress.Type
