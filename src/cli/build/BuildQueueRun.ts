// `vtree build --db`: this process as one worker of a queued build (programs/builder/BuildWorker.ts), with
// progress lines on stderr and, at the end, the summary of the videos it built. `--shard i/n` and the flags
// that do not go with a queue are checked here too.
import * as Path from "@effect/platform/Path"
import { Console, Effect, Option } from "effect"
import { loadTestingKnobs } from "../../config/RunConfig.js"
import { BuildError } from "../../programs/builder/BuildError.js"
import { type BuildInputs, videosToBuild } from "../../programs/builder/BuildInputs.js"
import type { BuildEvent } from "../../programs/builder/BuildOptions.js"
import * as Progress from "../../programs/builder/BuildProgress.js"
import type * as BuildPrompts from "../../programs/builder/BuildPrompts.js"
import { buildSettings, defaultBuildId, videosHash } from "../../programs/builder/BuildSettings.js"
import { inShard, parseShard } from "../../programs/builder/BuildShard.js"
import { renderQueueEvent, runQueuedBuild } from "../../programs/builder/BuildWorker.js"
import * as Inputs from "../../programs/builder/Inputs.js"
import type * as Plan from "../../programs/builder/Plan.js"
import { thisProcess } from "../../programs/harness/RunLease.js"
import { BuildQueue } from "../../services/BuildQueue.js"
import { countOf } from "../../text/Format.js"
import { terminalText } from "../../text/TerminalText.js"
import { loadPrices } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"
import { TerminalConsole } from "../TerminalConsole.js"
import * as Build from "./BuildLayers.js"

const badOption = (message: string) => new BuildError({ reason: "BadOption", message })

/** The flags of a queued or sharded build, checked together: which videos this process keeps, if not all. */
export const checkQueueFlags = (args: {
  readonly db: Option.Option<string>
  readonly buildId: Option.Option<string>
  readonly shard: Option.Option<string>
  readonly force: boolean
}): Effect.Effect<((videoId: string) => boolean) | undefined, BuildError> => {
  if (Option.isSome(args.buildId) && Option.isNone(args.db)) {
    return Effect.fail(badOption(`--build-id ${args.buildId.value}: names a build in a database — give --db too`))
  }
  if (Option.isSome(args.db) && Option.isSome(args.shard)) {
    return Effect.fail(badOption(
      `--shard ${args.shard.value} with --db: the database's queue shares the videos out among its workers — leave out --shard`
    ))
  }
  if (Option.isSome(args.db) && args.force) {
    return Effect.fail(badOption(
      "--force with --db: a video taken over from another worker would ask its checkpointed calls again — " +
        "remove the trees' .vtree/checkpoints before the build instead, or leave out --force"
    ))
  }
  if (Option.isNone(args.shard)) return Effect.succeed(undefined)
  const parsed = parseShard(args.shard.value)
  return "problem" in parsed ? Effect.fail(badOption(parsed.problem)) : Effect.succeed(inShard(parsed.shard))
}

/** Builds videos of the queued build --db names, with other workers, until none is left open. */
export const buildQueued = (
  db: string,
  inputs: BuildInputs,
  args: {
    readonly out: string
    readonly buildId: Option.Option<string>
    readonly domain: Option.Option<string>
    readonly concurrency: number
    readonly prices: Option.Option<string>
  },
  parameters: Plan.BuildParameters,
  buildPrompts: BuildPrompts.BuildPrompts,
  progress: (videos: number) => (event: BuildEvent) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    yield* Inputs.checkWritable(args.out)
    const models = yield* Build.models
    // Priced as a local build is: the build record's USD per role.
    const prices = yield* loadPrices(args.prices)
    const { stderr } = yield* TerminalConsole
    const queue = yield* (yield* Stores.RunStores).builds(db)
    const owner = yield* thisProcess
    // VTREE_LEASE_MS, the tests' knob for infer's leases, times a build's video leases too.
    const leaseMs = Option.getOrElse((yield* loadTestingKnobs).leaseMs, () => 60_000)
    const buildId = Option.getOrElse(args.buildId, () => defaultBuildId(videosHash(inputs.map((i) => i.video.videoId))))
    const line = (text: string) =>
      Effect.sync(() => stderr.unsafeWrite(`${stderr.isTTY ? "\r\x1b[2K" : ""}${terminalText(`vtree: ${text}`)}\n`))
    const result = yield* runQueuedBuild(
      videosToBuild(inputs),
      {
        outDir: args.out,
        parameters,
        prompts: buildPrompts,
        models,
        ...(Option.isSome(args.domain) ? { domain: args.domain.value } : {}),
        concurrency: args.concurrency,
        onEvent: progress(inputs.length),
        prices
      },
      {
        buildId,
        ownerId: owner.ownerId,
        leaseMs,
        pollMs: Math.min(5_000, Math.max(50, Math.floor(leaseMs / 4))),
        settings: buildSettings({
          parameters,
          models,
          prompts: buildPrompts,
          domain: Option.getOrUndefined(args.domain)
        }),
        onQueueEvent: (event) => line(renderQueueEvent(event))
      }
    ).pipe(
      Effect.provideService(BuildQueue, queue),
      Effect.onInterrupt(() =>
        Console.error(
          `${stderr.isTTY ? "\n" : ""}vtree: interrupted — the video in hand was handed back to build ${buildId}; ` +
            `finished model calls are saved under ${path.join(args.out, "<videoID>", ".vtree")}; ` +
            "start the worker again to go on"
        )
      )
    )
    if (result.summaries.length > 0) yield* Console.log(Progress.renderBuildSummary(result.summaries, parameters))
    const [first] = result.failed
    if (first !== undefined) {
      return yield* new BuildError({
        reason: "BadInput",
        message: `build ${buildId}: ${countOf(result.failed.length, "video")} failed here and ${
          result.failed.length === 1 ? "is" : "are"
        } marked so (no worker retries them): ${first.videoId}: ${first.error}`
      })
    }
  })
