// What `vtree build` does, loaded when it runs (cli/LazyCommand.ts); its options are in BuildCommand.ts.
import * as Path from "@effect/platform/Path"
import { Console, Effect, Layer, Option } from "effect"
import { BuildError } from "../../programs/builder/BuildError.js"
import { type BuildInputs, prepareInputs, videosToBuild } from "../../programs/builder/BuildInputs.js"
import type { BuildEvent } from "../../programs/builder/BuildOptions.js"
import * as Progress from "../../programs/builder/BuildProgress.js"
import * as BuildPrompts from "../../programs/builder/BuildPrompts.js"
import { buildTree } from "../../programs/builder/BuildTree.js"
import * as DryRun from "../../programs/builder/DryRun.js"
import * as Inputs from "../../programs/builder/Inputs.js"
import * as Plan from "../../programs/builder/Plan.js"
import * as Subtitles from "../../programs/builder/Subtitles.js"
import * as PromptPack from "../../programs/prompts/PromptPack.js"
import { workflowNames } from "../../services/GenAiConventions.js"
import { workflowSpan } from "../../services/Telemetry.js"
import { cutTerminalText, terminalText } from "../../text/TerminalText.js"
import * as Media from "../shared/MediaLayers.js"
import * as Output from "../shared/OutputLayers.js"
import { loadPrices } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"
import { TerminalConsole, type TerminalStream } from "../TerminalConsole.js"
import type { BuildArgs } from "./BuildCommand.js"
import * as Build from "./BuildLayers.js"
import { buildQueued, checkQueueFlags } from "./BuildQueueRun.js"

/** `--dry-run`: what each video's build would cost, as a table; no model is called. */
const printDryRun = (
  inputs: BuildInputs,
  args: BuildArgs,
  parameters: Plan.BuildParameters,
  buildPrompts: BuildPrompts.BuildPrompts
) =>
  Effect.gen(function*() {
    const models = yield* Build.models
    const buildPrices = yield* loadPrices(args.prices)
    const rows = yield* Effect.forEach(inputs, ({ planned, video }) =>
      Effect.gen(function*() {
        const subtitles = yield* planned
        const estimate = yield* DryRun.dryRunVideo(video, subtitles.cues, {
          outDir: args.out,
          parameters,
          prompts: buildPrompts,
          models,
          force: args.force
        })
        const speech = yield* DryRun.dryRunSpeech(video.info.durationSeconds, subtitles.source)
        return { videoId: video.videoId, estimate, subtitles: Subtitles.subtitleKind(subtitles.source), speech }
      }))
    yield* Console.log(Progress.renderDryRun(rows, buildPrices, parameters))
  })

/** The build's progress line on stderr, folded from its events. */
const progressReporter = (stderr: TerminalStream, videos: number) => {
  const isTTY = stderr.isTTY
  let state = Progress.initialBuildProgress(videos)
  let lastDraw = 0
  const draw = (now: number, force: boolean) => {
    // A live line on a terminal; otherwise a line every 10 seconds, so logs stay short.
    if (!force && now - lastDraw < (isTTY ? 250 : 10_000)) return
    lastDraw = now
    // Rendered for the terminal like every other line (a model name or id is data); cut on whole units.
    const line = Progress.renderBuildProgress(state, now)
    stderr.unsafeWrite(
      isTTY ? `\r\x1b[2K${cutTerminalText(line, (stderr.columns ?? 100) - 1)}` : `${terminalText(line)}\n`
    )
  }
  return (event: BuildEvent) =>
    Effect.sync(() => {
      const now = Date.now()
      state = Progress.applyBuildEvent(state, event, now)
      if (event._tag === "VideoFinished") {
        draw(now, true)
        if (isTTY) stderr.unsafeWrite("\n")
      } else {
        draw(now, event._tag === "VideoStarted" && !isTTY)
      }
    })
}

/** Builds every video's tree with a progress line, then prints the summary. */
const buildTrees = (
  inputs: BuildInputs,
  args: BuildArgs,
  parameters: Plan.BuildParameters,
  buildPrompts: BuildPrompts.BuildPrompts
) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    yield* Inputs.checkWritable(args.out)
    const models = yield* Build.models
    const buildPrices = yield* loadPrices(args.prices)
    const { stderr } = yield* TerminalConsole
    const isTTY = stderr.isTTY
    const summaries = yield* buildTree(
      videosToBuild(inputs),
      {
        outDir: args.out,
        parameters,
        prompts: buildPrompts,
        models,
        ...(Option.isSome(args.domain) ? { domain: args.domain.value } : {}),
        force: args.force,
        concurrency: args.concurrency,
        onEvent: progressReporter(stderr, inputs.length),
        prices: buildPrices
      }
    ).pipe(
      Effect.onInterrupt(() =>
        Console.error(
          `${isTTY ? "\n" : ""}vtree: interrupted — finished model calls are saved under ${
            path.join(args.out, "<videoID>", ".vtree")
          }; run the same command again to resume`
        )
      )
    )
    yield* Console.log(Progress.renderBuildSummary(summaries, parameters, buildPrices))
  })

/** `vtree build`: videos → trees, resumable; or with --dry-run, what that would cost. */
// A span for the whole command, so a build's preparation and its videos are one trace.
const build = Effect.fn(...workflowSpan(workflowNames.build))(function*(args: BuildArgs) {
  const parameters = {
    frameInterval: args.frameInterval,
    frameWidth: args.frameWidth,
    eventSeconds: args.eventSeconds,
    sceneSeconds: args.sceneSeconds,
    framesPerCall: args.framesPerCall,
    scenes: args.scenes
  }
  const problem = Plan.checkParameters(parameters)
  if (problem !== undefined) return yield* new BuildError({ reason: "BadOption", message: problem })
  const buildPrompts = yield* BuildPrompts.loadBuildPrompts(
    PromptPack.resolvePromptsDir(Option.getOrUndefined(args.prompts))
  )
  const keep = yield* checkQueueFlags(args)
  const inputs = yield* prepareInputs({ ...args, ...(keep === undefined ? {} : { keep }) })
  if (args.dryRun) return yield* printDryRun(inputs, args, parameters, buildPrompts)
  if (Option.isSome(args.db)) {
    const { stderr } = yield* TerminalConsole
    return yield* buildQueued(
      args.db.value,
      inputs,
      args,
      parameters,
      buildPrompts,
      (n) => progressReporter(stderr, n)
    )
  }
  yield* buildTrees(inputs, args, parameters, buildPrompts)
})

export const runBuild = (args: BuildArgs) =>
  build(args).pipe(
    // A dry run calls no model, so it needs none configured; a build's cap is --concurrency.
    Effect.provide(
      Layer.mergeAll(
        Media.ffmpeg,
        Output.quiet,
        Stores.writable,
        args.dryRun ? Build.dryRunProviders : Build.providers(args.concurrency)
      )
    )
  )
