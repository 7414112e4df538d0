// What `vtree infer` reads and checks before it opens a run store: the selected questions, their keys and prompts,
// the trees they need; on --resume, what the run stored fills in each flag not given.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Option } from "effect"
import type { BenchmarkFacts, BenchmarkName, Question } from "../../domain/Question.js"
import type { StoredRunConfig } from "../../domain/RunConfig.js"
import { type RunSelection } from "../../domain/RunRecord.js"
import type { RunStoreShape } from "../../services/RunStore.js"
import type { PromptManager } from "../prompts/PromptManager.js"
import { loadPromptManager, resolvePromptsDir } from "../prompts/PromptPack.js"
import { loadQuestionSet } from "../questions/QuestionLoader.js"
import { selectQuestions, splitList } from "../questions/QuestionSelection.js"
import { checkQuestionIds } from "../tree/TreePreflight.js"
import { InferError } from "./InferError.js"
import { checkTrees } from "./RunPlan.js"
import { questionsSha256, type SelectionInput } from "./RunSelection.js"

/**
 * What `infer` was asked for, as given (a flag left out is None): the questions, their filters and keys, the trees
 * and prompts, and on --resume which run of which database.
 */
export interface InferRequest {
  /** On --resume, the run's own folder unless given. */
  readonly trees: Option.Option<string>
  readonly questions: Option.Option<string>
  readonly benchmark: Option.Option<string>
  readonly answers: Option.Option<string>
  readonly prompts: Option.Option<string>
  readonly videoIds: Option.Option<string>
  readonly questionIds: Option.Option<string>
  readonly taskTypes: Option.Option<string>
  readonly nSamples: Option.Option<number>
  readonly runId: Option.Option<string>
  readonly db: string
  /** --resume or --takeover: the run's stored selection fills in what is not given. */
  readonly resuming: boolean
}

/** What `infer` reads and checks before the run store opens: the selected questions and the prompt pack. */
export interface InferInputs {
  readonly questions: ReadonlyArray<Question>
  /** The questions' benchmark, and each question's facts beside it (loadQuestionSet's). */
  readonly benchmark: BenchmarkName
  readonly benchmarkFacts: ReadonlyMap<string, BenchmarkFacts>
  /** `--answers`, absolute (on --resume, the run's own unless given). */
  readonly answers: string | undefined
  readonly prompts: PromptManager
  /** Stored with the run; a resumed run must ask the same. */
  readonly selection: SelectionInput
  /** --questions as given (or as the resumed run stored it). */
  readonly questionsPath: string
  /** --trees as given (or as the resumed run stored it). */
  readonly treesDir: string
}

/** The question file and filters a run asks; on --resume, each defaults to the run's stored one. */
interface SelectionArgs {
  readonly questions: string
  readonly videoIds: ReadonlyArray<string> | null
  readonly questionIds: ReadonlyArray<string> | null
  readonly taskTypes: ReadonlyArray<string> | null
  readonly nSamples: number | null
}

const selectOrFail = (all: ReadonlyArray<Question>, args: SelectionArgs) =>
  Effect.gen(function*() {
    const selection = selectQuestions(all, {
      videoIds: args.videoIds ?? undefined,
      questionIds: args.questionIds ?? undefined,
      taskTypes: args.taskTypes ?? undefined,
      nSamples: args.nSamples ?? undefined
    })
    const { unmatched } = selection
    const notes = [
      unmatched.videoIds.length > 0 ? `--video-ids ${unmatched.videoIds.join(",")}` : undefined,
      unmatched.questionIds.length > 0 ? `--question-ids ${unmatched.questionIds.join(",")}` : undefined,
      unmatched.taskTypes.length > 0 ? `--task-types ${unmatched.taskTypes.join(",")}` : undefined
    ].filter((note) => note !== undefined)
    if (selection.questions.length === 0) {
      return yield* new InferError({
        reason: "NoQuestions",
        message: `no question matches the filters${notes.length > 0 ? ` (nothing for ${notes.join("; ")})` : ""} — ` +
          `check the ids and task types against the question file`
      })
    }
    if (notes.length > 0) yield* Console.error(`vtree: warning: these match no question: ${notes.join("; ")}`)
    return selection.questions
  })

/**
 * The selection flags as given, each falling back to the resumed run's stored one: `--resume` alone
 * asks the run's own question set; a flag that differs from it is refused by runBenchmark.
 */
const selectionArgs = (args: InferRequest, stored: RunSelection | null, runName: string) =>
  Effect.gen(function*() {
    const listOption = (value: Option.Option<string>, fallback: ReadonlyArray<string> | null | undefined) =>
      Option.match(value, { onNone: () => fallback ?? null, onSome: splitList })
    const questionsPath = Option.getOrUndefined(args.questions) ?? stored?.questionsPath
    if (Option.isNone(args.questions) && questionsPath !== undefined) {
      yield* storedPathExists(questionsPath, runName, "question file", "--questions")
    }
    if (questionsPath === undefined) {
      return yield* new InferError({
        reason: "BadOption",
        message: args.resuming
          ? "--resume: this run was started before vtree stored its question set — pass --questions (and the same filters) again"
          : "--questions is required: a benchmark's question file or folder (Video-MME, LVBench, LongVideoBench, MLVU, EgoSchema, NExT-QA)"
      })
    }
    const selection: SelectionArgs = {
      questions: questionsPath,
      videoIds: listOption(args.videoIds, stored?.videoIds),
      questionIds: listOption(args.questionIds, stored?.questionIds),
      taskTypes: listOption(args.taskTypes, stored?.taskTypes),
      nSamples: Option.getOrUndefined(args.nSamples) ?? stored?.nSamples ?? null
    }
    return selection
  })

/** A path the resumed run stored that is gone: one line naming it and the flag that says where it is now. */
const storedPathExists = (stored: string, runName: string, what: string, flag: string, fix?: string) =>
  Effect.gen(function*() {
    if (yield* exists(stored)) return
    return yield* new InferError({
      reason: "BadOption",
      message: `--resume: run ${runName}'s ${what} ${stored} no longer exists — ${
        fix ?? `pass ${flag} with where it is now`
      }`
    })
  })

const exists = (path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.orElseSucceed(fs.exists(path), () => false))

/**
 * The question file as the run records it: a resumed run's file moved elsewhere (its stored path gone, its content
 * the same) is still the run's question set, recorded under its stored path.
 */
const recordedQuestionsPath = (questionsPath: string, sha256: string, stored: RunSelection | null) =>
  Effect.gen(function*() {
    if (stored === null || stored.questionsPath === questionsPath || stored.questionsSha256 !== sha256) {
      return questionsPath
    }
    return (yield* exists(stored.questionsPath)) ? questionsPath : stored.questionsPath
  })

/**
 * The trees folder: --trees, or on --resume the run's own (checked to be there, so a moved folder is named with
 * the flag to pass).
 */
const treesFolder = (args: InferRequest, resumed: StoredInputs | null) =>
  Effect.gen(function*() {
    if (Option.isSome(args.trees)) return args.trees.value
    const stored = resumed?.config.treesDir
    if (resumed === null || stored === undefined) {
      return yield* new InferError({
        reason: "BadOption",
        message: resumed === null
          ? "--trees is required (the folder holding one <videoID>/tree.json per video) — pass --trees DIR, or --resume to continue a run"
          : `--resume: run ${resumed.runId} did not record its trees folder — pass --trees`
      })
    }
    yield* storedPathExists(stored, resumed.runId, "trees folder", "--trees")
    return stored
  })

/** What a resumed run stored about what it asks: its question set, benchmark and `--answers` file, its settings. */
export interface StoredInputs {
  readonly runId: string
  readonly selection: RunSelection | null
  readonly benchmark: BenchmarkName
  readonly answers: string | undefined
  /** The run's whole record: its trees folder, prompts and every setting a flag left out falls back to. */
  readonly config: StoredRunConfig
}

/** The run --resume continues (--run-id's, or the latest) in `store`, and the inputs stored with it. */
export const storedSelection = Effect.fn("InferInputs.storedSelection")(
  function*(store: RunStoreShape, args: InferRequest) {
    const run = Option.isSome(args.runId)
      ? yield* store.getRun(args.runId.value)
      : Option.fromNullable((yield* store.listRuns)[0])
    if (Option.isNone(run)) {
      return yield* new InferError({
        reason: "NothingToResume",
        message: Option.isSome(args.runId)
          ? `--resume: no run "${args.runId.value}" in ${args.db} — check --run-id (\`vtree report\` shows the latest run)`
          : `--resume: ${args.db} holds no run to resume — start one without --resume`
      })
    }
    const inputs: StoredInputs = {
      runId: run.value.runId,
      config: run.value.config,
      selection: run.value.selection ?? null,
      benchmark: run.value.config.benchmark,
      answers: run.value.config.answers ?? undefined
    }
    return inputs
  }
)

/**
 * The questions the flags select (on --resume, those `resumed` stored, unless a flag says otherwise), the
 * prompt pack, and the trees checked for them: everything `infer` refuses before it opens a database.
 */
export const loadInferInputs = Effect.fn("InferInputs.load")(
  function*(args: InferRequest, resumed: StoredInputs | null) {
    const treesDir = yield* treesFolder(args, resumed)
    const given = yield* selectionArgs(args, resumed?.selection ?? null, resumed?.runId ?? "")
    // A resumed run reads its questions as it did: its benchmark and keys unless the flags say otherwise
    // (runBenchmark refuses a benchmark or keys that differ from the run's).
    const benchmark = Option.getOrUndefined(args.benchmark) ?? resumed?.benchmark
    const answersFile = Option.getOrUndefined(args.answers) ?? resumed?.answers
    if (Option.isNone(args.answers) && resumed !== null && answersFile !== undefined) {
      // A run keeps its keys by path (runBenchmark refuses others): a moved file goes back where it was.
      yield* storedPathExists(answersFile, resumed.runId, "answers file", "--answers", "put it back there")
    }
    const loaded = yield* loadQuestionSet(given.questions, { benchmark, answers: answersFile })
    const questions = yield* selectOrFail(loaded.questions, given)
    const path = yield* Path.Path
    const questionsPath = path.resolve(given.questions)
    const sha256 = yield* questionsSha256(questionsPath).pipe(
      Effect.mapError((error) =>
        new InferError({
          reason: "BadOption",
          message: `--questions ${given.questions}: cannot read it (${error.message}) — check the path`
        })
      )
    )
    // A resumed run asks with its own prompt pack unless told otherwise.
    const storedPrompts = Option.isNone(args.prompts) ? resumed?.config.prompts : undefined
    if (resumed !== null && storedPrompts !== undefined) {
      yield* storedPathExists(storedPrompts, resumed.runId, "prompt pack", "--prompts")
    }
    const prompts = yield* loadPromptManager(
      resolvePromptsDir(Option.getOrUndefined(args.prompts) ?? storedPrompts)
    )
    // runBenchmark checks again (it is library API too); checking here first means a bad --trees never
    // opens, or creates, the database. One exists() per video: cheap to do twice.
    yield* checkQuestionIds(questions)
    yield* checkTrees(treesDir, questions)
    const selection: SelectionInput = {
      questionsPath: yield* recordedQuestionsPath(questionsPath, sha256, resumed?.selection ?? null),
      questionsSha256: sha256,
      videoIds: given.videoIds,
      questionIds: given.questionIds,
      taskTypes: given.taskTypes,
      nSamples: given.nSamples
    }
    const inputs: InferInputs = {
      questions,
      benchmark: loaded.benchmark,
      benchmarkFacts: loaded.facts,
      answers: answersFile === undefined ? undefined : path.resolve(answersFile),
      prompts,
      selection,
      questionsPath: given.questions,
      treesDir
    }
    return inputs
  }
)
