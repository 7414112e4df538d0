// What `vtree judge` does, loaded when it runs (cli/LazyCommand.ts); its options are in JudgeCommand.ts.
import { Console, Effect, Layer, Option, Schema } from "effect"
import { loadJudgePrompt } from "../../programs/judge/JudgePrompt.js"
import { judgeRun } from "../../programs/judge/JudgeRun.js"
import { resolvePromptsDir } from "../../programs/prompts/PromptPack.js"
import { storedPrices } from "../../programs/report/RunSettings.js"
import { JudgementStore } from "../../services/JudgementStore.js"
import { RunStore } from "../../services/RunStore.js"
import { formatCount } from "../../text/Format.js"
import { loadPrices } from "../shared/Prices.js"
import * as Stores from "../shared/StoreLayers.js"
import type { JudgeArgs } from "./JudgeCommand.js"
import { judgeLayers } from "./JudgeLayers.js"

/** Why `vtree judge` judged nothing: a database without runs, or a run without an open-ended answer. */
export class JudgeError extends Schema.TaggedError<JudgeError>()("JudgeError", {
  reason: Schema.Literal("NoRuns", "NothingToJudge"),
  message: Schema.String
}) {}

/** Progress on stderr: every tenth of the way, and the last. */
const progress = (done: number, total: number) =>
  done === total || Math.floor((done * 10) / total) > Math.floor(((done - 1) * 10) / total)
    ? Console.error(`judged ${formatCount(done)}/${formatCount(total)}`)
    : Effect.void

/** `vtree judge`: the open-ended answers of a finished run, judged by the configured judges (VTREE_JUDGE_MODEL). */
export const judge = (args: JudgeArgs) =>
  Effect.gen(function*() {
    const stores = yield* Stores.RunStores
    const store = yield* stores.open(args.db, { mustExist: true })
    const chosen = Option.isSome(args.runId) ? args.runId.value : (yield* store.listRuns)[0]?.runId
    if (chosen === undefined) {
      return yield* new JudgeError({
        reason: "NoRuns",
        message: `${Stores.displayDb(args.db)}: holds no runs yet — run \`vtree infer\` first`
      })
    }
    const prompt = yield* loadJudgePrompt(resolvePromptsDir(Option.getOrUndefined(args.prompts)))
    const run = yield* store.getRun(chosen)
    const priced = yield* loadPrices(args.prices, Option.isSome(run) ? storedPrices(run.value.config) : {})
    const result = yield* judgeRun({
      runId: chosen,
      prompt,
      concurrency: args.concurrency,
      prices: priced,
      onProgress: progress
    }).pipe(
      Effect.provideService(RunStore, store),
      Effect.provideService(JudgementStore, yield* stores.judgements(args.db))
    )
    if (result.answers === 0) {
      return yield* new JudgeError({
        reason: "NothingToJudge",
        message: `run ${chosen} holds no answered open-ended question (one without options) — nothing to judge` +
          (result.skipped > 0 ? ` (${formatCount(result.skipped)} open-ended without an answer)` : "")
      })
    }
    yield* Console.log(
      `Run ${chosen}: ${formatCount(result.answers)} open-ended answers, ${formatCount(result.judgements)} judgements` +
        ` (${formatCount(result.called)} asked, ${formatCount(result.cached)} from the cache, ${
          formatCount(result.failed)
        } judge failures) — see \`vtree report --run-id ${chosen}\``
    )
  }).pipe(Effect.scoped).pipe(Effect.provide(Layer.merge(Stores.writable, judgeLayers)))
