import { Args, Command, Options } from "@effect/cli"
import { defaultParameters } from "../../programs/builder/Plan.js"
import { wholeNumber, withShownDefault } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

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
  Options.withDescription(
    "Model calls in flight at once per role: vision (event cards) and text (scenes, registry) each (sets the provider layers' cap for this command)"
  ),
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

export type BuildArgs = Command.Command.ParseConfig<typeof options>

/** `vtree build`: its options here, its work in BuildRun.ts, loaded when it runs. */
export const buildCommand = Command.make(
  "build",
  options,
  loadedWhenRun(() => import("./BuildRun.js"), (run, args: BuildArgs) => run.runBuild(args))
).pipe(
  Command.withDescription(
    "Build trees from video files: frames, subtitles, one vision call per event and one text call per scene; resumable (Ctrl-C keeps finished calls)"
  )
)
