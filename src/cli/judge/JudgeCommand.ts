import { Command, Options } from "@effect/cli"
import { dbOption, optionalText, wholeNumber, withShownDefault } from "../CliOptions.js"
import { loadedWhenRun } from "../LazyCommand.js"

const db = dbOption("Run database written by `vtree infer`")
const runId = optionalText("run-id", "Run whose open-ended answers to judge (default: the most recently started run)")
const prompts = optionalText(
  "prompts",
  "Prompt pack whose judge.md the judges read: en, zh or a folder (default: en); an edited prompt judges afresh"
)
const concurrency = wholeNumber("concurrency", 1).pipe(
  Options.withDescription("Judgements in flight at once"),
  withShownDefault(8)
)
const prices = optionalText(
  "prices",
  "JSON file of USD per 1M tokens per role (the judge's as \"judge\"); default: the run's own prices. " +
    "VTREE_JUDGE_PRICE=input,cached,output overrides"
)

const options = { db, runId, prompts, concurrency, prices }
export type JudgeArgs = Command.Command.ParseConfig<typeof options>

/** `vtree judge`: the open-ended answers of a finished run, judged by the configured judges (VTREE_JUDGE_MODEL). */
export const judgeCommand = Command.make(
  "judge",
  options,
  loadedWhenRun(() => import("./JudgeRun.js"), (run, args: JudgeArgs) => run.judge(args))
).pipe(
  Command.withDescription(
    "Judge a finished run's open-ended answers (questions without options) with the models of VTREE_JUDGE_MODEL " +
      "(majority vote); cached verdicts cost no call"
  )
)
