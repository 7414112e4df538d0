import { Args, Command, Options } from "@effect/cli"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Layer, Option } from "effect"
import { BuildError } from "../../programs/builder/BuildError.js"
import { type BuildInputs, prepareInputs } from "../../programs/builder/BuildInputs.js"
import type { BuildEvent } from "../../programs/builder/BuildOptions.js"
import * as Progress from "../../programs/builder/BuildProgress.js"
import * as BuildPrompts from "../../programs/builder/BuildPrompts.js"
import { buildTree } from "../../programs/builder/BuildTree.js"
import * as DryRun from "../../programs/builder/DryRun.js"
import * as Inputs from "../../programs/builder/Inputs.js"
import * as Plan from "../../programs/builder/Plan.js"
import { defaultParameters } from "../../programs/builder/Plan.js"
import * as Subtitles from "../../programs/builder/Subtitles.js"
import * as PromptPack from "../../programs/prompts/PromptPack.js"
import { workflowNames } from "../../services/GenAiConventions.js"
import { workflowSpan } from "../../services/Telemetry.js"
import { cutTerminalText, terminalText } from "../../text/TerminalText.js"
import { wholeNumber, withShownDefault } from "../CliOptions.js"
import * as Media from "../shared/MediaLayers.js"
import * as Output from "../shared/OutputLayers.js"
import { loadPrices } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"
import { TerminalConsole, type TerminalStream } from "../TerminalConsole.js"
import * as Build from "./BuildLayers.js"
import { buildQueued, checkQueueFlags } from "./BuildQueueRun.js"

const videos = Args.text({ name: "VIDEO_OR_DIR" }).pipe(
  Args.withDescription("Video files, or folders whose videos (mp4, mkv, webm, mov, …) are all built"),
  Args.atLeast(1)
)
const out = Options.text("out").pipe(
  Options.withDescription("Folder the trees are written to, one <videoID>/ each (created when missing)")
)
const frameInterval = Options.float("frame-interval").pipe(
  Options.withDescription("Seconds between sampled frames"),
  withShownDefault(defaultParameters.frameInterval)
)
const frameWidth = wholeNumber("frame-width", 32).pipe(
  Options.withDescription("Width of the frame JPEGs in pixels (height keeps the aspect ratio)"),
  withShownDefault(defaultParameters.frameWidth)
)
const eventSeconds = Options.float("event-seconds").pipe(
  Options.withDescription(
    "Target length of an event (one vision call), capped at what --frames-per-call frames span; never under half or over twice the target"
  ),
  withShownDefault(defaultParameters.eventSeconds)
)
const sceneSeconds = Options.float("scene-seconds").pipe(
  Options.withDescription(
    "Longest scene (one text call over its events) with --scenes cuts; the target length of one with --scenes fixed"
  ),
  withShownDefault(defaultParameters.sceneSeconds)
)
const scenes = Options.choice("scenes", ["cuts", "fixed"]).pipe(
  Options.withDescription(
    "cuts: scenes end where the picture changes most, events never cross them, none over --scene-seconds; fixed: windows of about --scene-seconds grouped from the event cards (as before)"
  ),
  withShownDefault(defaultParameters.scenes)
)
const framesPerCall = wholeNumber("frames-per-call", 1).pipe(
  Options.withDescription("Most images per vision call; events are sized so every frame is sent once"),
  withShownDefault(defaultParameters.framesPerCall)
)
const subtitles = Options.text("subtitles").pipe(
  Options.withDescription("Subtitle file (.srt / .vtt) for the one video given; wins over every other source"),
  Options.optional
)
const subtitlesDir = Options.text("subtitles-dir").pipe(
  Options.withDescription(
    "Folder of <videoID>.srt|.vtt (Video-MME's subtitle/), .json|_en.json (LongVideoBench's) or .jsonl (Video-MME-v2's words); with --questions, where its subtitle_path files lie"
  ),
  Options.optional
)
const domain = Options.text("domain").pipe(
  Options.withDescription("Written to tree.json as every video's domain (over the one --questions gives)"),
  Options.optional
)
const questions = Options.text("questions").pipe(
  Options.withDescription(
    "A benchmark's question file (or folder of .json files): build only the videos it names, each with its domain, duration band and (LongVideoBench) subtitles"
  ),
  Options.optional
)
const benchmark = Options.text("benchmark").pipe(
  Options.withDescription(
    "The benchmark --questions is in (videomme, lvbench, longvideobench, mlvu, egoschema, nextqa, custom, videommev2); detected when left out"
  ),
  Options.optional
)
const prompts = Options.text("prompts").pipe(
  Options.withDescription("Prompt pack holding build_event.md and build_scene.md, or en / zh (default: en)"),
  Options.optional
)
const concurrency = wholeNumber("concurrency", 1).pipe(
  Options.withDescription("Model calls in flight at once (sets the provider layers' cap for this command)"),
  withShownDefault(16)
)
const recursive = Options.boolean("recursive").pipe(
  Options.withDescription(
    "Take the videos of a folder's subfolders too, at any depth (links to folders and hidden folders are not entered)"
  )
)
const prices = Options.text("prices").pipe(
  Options.withDescription(
    "Prices file ({\"vlm\": {\"input\", \"output\"}, \"tool\": …}, USD per 1M tokens) for the USD per role of --dry-run, the summary and tree.json's build record; VTREE_VLM_PRICE / VTREE_TOOL_PRICE override a role"
  ),
  Options.optional
)
const force = Options.boolean("force").pipe(
  Options.withDescription("Drop checkpoints and cached frames; every call is made again")
)
const dryRun = Options.boolean("dry-run").pipe(
  Options.withDescription(
    "Print frames, events, scenes, calls and a token estimate per video; call nothing, write nothing"
  )
)
const db = Options.text("db").pipe(
  Options.withDescription(
    "A build queue shared by workers on many machines (same --out on shared storage): an SQLite file or postgres://…; each worker builds one video at a time, longest first"
  ),
  Options.optional
)
const buildId = Options.text("build-id").pipe(
  Options.withDescription(
    "The queued build to start or join (with --db); default: named after the video set, so workers given the same videos meet"
  ),
  Options.optional
)
const shard = Options.text("shard").pipe(
  Options.withDescription(
    "i/n (1 ≤ i ≤ n): without a database, build only this machine's share of the videos, split by a hash of each video id (adding files moves no other video)"
  ),
  Options.optional
)

const options = {
  videos,
  out,
  frameInterval,
  frameWidth,
  eventSeconds,
  sceneSeconds,
  scenes,
  framesPerCall,
  subtitles,
  subtitlesDir,
  domain,
  questions,
  benchmark,
  prompts,
  concurrency,
  recursive,
  prices,
  force,
  dryRun,
  db,
  buildId,
  shard
}

type BuildArgs = Command.Command.ParseConfig<typeof options>

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
      inputs.map(({ subtitles, video: { metadata, ...video } }) => ({
        ...video,
        subtitles,
        ...(metadata?.domain === undefined ? {} : { domain: metadata.domain }),
        ...(metadata?.durationCategory === undefined ? {} : { durationCategory: metadata.durationCategory })
      })),
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
export const buildCommand = Command.make(
  "build",
  options,
  Effect.fn(...workflowSpan(workflowNames.build))(function*(args) {
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
).pipe(
  Command.withDescription(
    "Build trees from video files: frames, subtitles, one vision call per event and one text call per scene; resumable (Ctrl-C keeps finished calls)"
  ),
  // A dry run calls no model, so it needs none configured; a build's cap is --concurrency.
  Command.provide((args) =>
    Layer.mergeAll(
      Media.ffmpeg,
      Output.quiet,
      Stores.writable,
      args.dryRun ? Build.dryRunProviders : Build.providers(args.concurrency)
    )
  )
)
