import { type Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"
import { controlKinds, defaultControlSeed } from "../../domain/Control.js"
import { agentDefaults, controlDefaults, type StoredRunConfig } from "../../domain/RunConfig.js"
import { type Sampling, type SamplingField, samplingFields } from "../../domain/Sampling.js"
import { dbOption, optionalText, promptOptions, wholeNumber } from "../CliOptions.js"

// The flags of `vtree infer`; what they do in full is in docs/running.md and docs/cli.md.

const trees = optionalText(
  "trees",
  "Folder holding one <videoID>/tree.json per video (required unless --resume: a resumed run reads its own)"
)

/**
 * A setting's default shown in the help but applied later (`settingsOf`): left out on --resume, the run's own
 * value applies, so the command tells "not given" from "given the default".
 */
const unsaidDefault = (shown: unknown) => <A>(self: Options.Options<A>) =>
  self.pipe(Options.withDescription(`Default: ${String(shown)}.`), Options.optional)
const questions = optionalText(
  "questions",
  "A benchmark's question file or folder, its layout read from its content: Video-MME, LVBench, LongVideoBench, MLVU, " +
    "EgoSchema, NExT-QA (required unless --resume: a resumed run asks its own)"
)
const benchmark = optionalText(
  "benchmark",
  "Read --questions as this benchmark's layout instead of detecting it: videomme, lvbench, longvideobench, mlvu, egoschema, nextqa, custom or videommev2"
)
const answers = optionalText(
  "answers",
  "Keys shipped apart from the questions, a JSON {question id: letter or index} such as EgoSchema's subset_answers.json"
)
const db = dbOption("Where the run is written (an SQLite file is created when missing)")
const runId = optionalText(
  "run-id",
  "Run id (default: run-<start time>-<random>); with --resume, the run to continue. On a PostgreSQL --db, every " +
    "infer started with the same id (on any machine) is a worker of that one run"
)
const concurrency = wholeNumber("concurrency", 1).pipe(
  Options.withDescription("Questions answered at once"),
  unsaidDefault(controlDefaults.concurrency)
)
const { prompts, webSearch } = promptOptions({
  prompts: "Prompt pack folder, or en / zh for a packaged pack (default: en)",
  skillMode: "auto: the skill for the task type; manual: a skill catalog plus read_skill; none: no skills",
  maxSteps: "Tool steps per question before it ends as budget_exceeded",
  webSearch: "Give the agent external_search / external_read (configure with VTREE_SEARCH_*)"
})
const skillMode = Options.choice("skill-mode", ["auto", "manual", "none"]).pipe(
  Options.withDescription(
    "auto: the skill for the task type; manual: a skill catalog plus read_skill; none: no skills"
  ),
  unsaidDefault(agentDefaults.skillMode)
)
const maxSteps = wholeNumber("max-steps", 1).pipe(
  Options.withDescription("Tool steps per question before it ends as budget_exceeded"),
  unsaidDefault(agentDefaults.maxSteps)
)
const nSamples = wholeNumber("n-samples", 1).pipe(
  Options.withDescription("Only the first N selected questions, in file order"),
  Options.optional
)
const videoIds = optionalText("video-ids", "Comma-separated video ids to keep")
const questionIds = optionalText("question-ids", "Comma-separated question ids to keep")
const taskTypes = optionalText(
  "task-types",
  "Comma-separated task types to keep, e.g. \"Counting Problem,OCR Problems\""
)
const resume = Options.boolean("resume").pipe(
  Options.withDescription("Continue a run, skipping the questions it saved: --run-id's, or the latest run in --db")
)
const takeover = Options.boolean("takeover").pipe(
  Options.withDescription(
    "Take over a run whose owner died (lease expired; `vtree report` shows it stale); implies --resume. Not needed on PostgreSQL, where workers share a run"
  )
)
const retryErrors = Options.boolean("retry-errors").pipe(
  Options.withDescription(
    "With --resume: also ask again the questions that ended with stop reason error (e.g. after an outage)"
  )
)
// On by default, so the flag that appears in help is the one that changes something.
const verifyVision = Options.boolean("no-verify-vision", { ifPresent: false, negationNames: ["verify-vision"] }).pipe(
  Options.withDescription(
    "--no-verify-vision: skip the second vision round that checks the first; --verify-vision: run that second, checking vision round (the default)"
  )
)
const anchor = Options.boolean("anchor").pipe(
  Options.withDescription("Anchor mode: node text numbered [c1]/[s1], the model cites anchors (see --anchor-mode)")
)
const anchorMode = Options.choice("anchor-mode", ["ids", "quote"]).pipe(
  Options.withDescription("With --anchor: ids keeps the model's text; quote also expands each anchor to its line"),
  unsaidDefault("quote")
)

const protocol = Options.choice("protocol", ["json", "tools"]).pipe(
  Options.withDescription(
    "How the agent calls tools: json (one JSON object per reply, any model) or tools (the endpoint's native function calling)"
  ),
  unsaidDefault(agentDefaults.protocol)
)
/** `--<name> <value>` read by the sampling field's own reader: one line naming the flag when it is not such a value. */
const samplingOption = (field: SamplingField, pseudo: string, description: string) => {
  const { expected, flag, parse } = samplingFields[field]
  return Options.text(flag.slice(2)).pipe(
    Options.withPseudoName(pseudo),
    Options.mapEffect((raw) => {
      const value = parse(raw.trim())
      return value === undefined
        ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(`vtree: ${flag} ${raw}: expected ${expected}`)))
        : Effect.succeed(value)
    }),
    Options.withDescription(description),
    Options.optional
  )
}
const temperature = samplingOption(
  "temperature",
  "number",
  "The agent model's temperature, 0–2 (overrides VTREE_LLM_TEMPERATURE; unset: not sent)"
)
const topP = samplingOption(
  "topP",
  "number",
  "The agent model's top_p, above 0 to 1 (overrides VTREE_LLM_TOP_P; unset: not sent)"
)
const seed = samplingOption("seed", "integer", "The agent model's seed (overrides VTREE_LLM_SEED; unset: not sent)")
const maxTokens = samplingOption(
  "maxTokens",
  "integer",
  "Cap on each agent reply's tokens, thinking included, sent as max_tokens or max_completion_tokens as the endpoint " +
    "wants (overrides VTREE_LLM_MAX_TOKENS; unset: not sent)"
)

const noFinalAnswer = Options.boolean("no-final-answer").pipe(
  Options.withDescription(
    "Leave a question unanswered when its steps run out (the reference). Default: one more call asks for submit_answer " +
      "now, and that answer counts, marked forced"
  )
)
const maxCost = Options.float("max-cost").pipe(
  Options.withDescription(
    "Stop starting questions once spent + in-flight estimate would pass this many USD (run ends budget_stopped; --resume with a higher cap continues). Needs prices"
  ),
  Options.optional
)
const prices = optionalText("prices", "Prices file for cost and --max-cost (format: see `vtree report --help`)")
const control = Options.choice("control", controlKinds).pipe(
  Options.withDescription(
    "A control run: blind (question and options alone, one call, no tree), shuffled (another video's tree of " +
      "similar length) or chance (a seeded draw, no model)"
  ),
  Options.optional
)
const controlSeed = wholeNumber("control-seed", 0).pipe(
  Options.withDescription("The seed of --control shuffled's video pairing and --control chance's draw"),
  // Unsaid, a resumed run keeps its own: the default is shown, not applied here.
  Options.withDescription(`Default: ${defaultControlSeed}.`),
  Options.optional
)

export const options = {
  trees,
  questions,
  benchmark,
  answers,
  db,
  runId,
  concurrency,
  maxSteps,
  skillMode,
  prompts,
  nSamples,
  videoIds,
  questionIds,
  taskTypes,
  resume,
  takeover,
  retryErrors,
  verifyVision,
  anchor,
  anchorMode,
  webSearch,
  protocol,
  temperature,
  topP,
  seed,
  maxTokens,
  noFinalAnswer,
  maxCost,
  prices,
  control,
  controlSeed
}

export type InferArgs = Command.Command.ParseConfig<typeof options>

/**
 * The settings the run is asked with: each flag as given; left out, the resumed run's own (`stored`), else the
 * default. A boolean flag cannot say "not given": at its default it reads as the run's own.
 */
export const runSettings = (args: InferArgs, stored: StoredRunConfig | undefined) => {
  const pick = <A>(given: Option.Option<A>, own: A | undefined, fallback: A): A =>
    Option.getOrElse(given, () => own ?? fallback)
  const storedAnchor = stored?.anchor ?? "off"
  return {
    concurrency: pick(args.concurrency, stored?.concurrency, controlDefaults.concurrency),
    maxSteps: pick(args.maxSteps, stored?.maxSteps, agentDefaults.maxSteps),
    skillMode: pick(args.skillMode, stored?.skillMode, agentDefaults.skillMode),
    protocol: pick(args.protocol, stored?.protocol, agentDefaults.protocol),
    verifyVision: args.verifyVision ? (stored?.verifyVision ?? true) : false,
    anchor: args.anchor
      ? pick(args.anchorMode, storedAnchor === "off" ? undefined : storedAnchor, "quote" as const)
      : storedAnchor
  }
}

/** --takeover implies --resume. */
export const resuming = (args: InferArgs): boolean => args.resume || args.takeover

/** The agent's sampling as the flags set it: only the flags given. */
export const agentSampling = (args: InferArgs): Sampling => ({
  ...Option.match(args.temperature, { onNone: () => ({}), onSome: (temperature) => ({ temperature }) }),
  ...Option.match(args.topP, { onNone: () => ({}), onSome: (topP) => ({ topP }) }),
  ...Option.match(args.seed, { onNone: () => ({}), onSome: (seed) => ({ seed }) }),
  ...Option.match(args.maxTokens, { onNone: () => ({}), onSome: (maxTokens) => ({ maxTokens }) })
})
