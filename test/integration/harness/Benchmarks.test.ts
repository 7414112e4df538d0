// Every benchmark through the run: its released layout (fixtures shaped like the files) loaded, asked by a
// scripted model with runBenchmark into a real SQLite store, then the stored run's report model and its
// benchmark's own export, with the values checked. Also: --resume keeps the benchmark, an older database
// reads as Video-MME.
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { Providers } from "../../../src/index.js"
import { Benchmark, MemoryCallBuffer, Prompts, Store, Testing } from "../../../src/index.js"
import { migrations } from "../../../src/layers/sql/Migrations.js"
import * as SqliteRunStore from "../../../src/layers/sql/sqlite/SqliteRunStore.js"
import { type LoadOptions, loadQuestionSet } from "../../../src/programs/questions/QuestionLoader.js"
import { renderExport } from "../../../src/programs/report/Export.js"
import { formatOfBenchmark } from "../../../src/programs/report/ExportFormats.js"
import { summarize } from "../../../src/programs/report/Report.js"
import { renderHtml } from "../../../src/programs/report/ReportHtml.js"
import { renderJson, renderText } from "../../../src/programs/report/ReportText.js"
import { trajectoryParts } from "../../../src/programs/report/ReportTrajectory.js"
import {
  egoSchemaRows,
  egoSchemaSubset,
  json,
  jsonl,
  longVideoBenchRows,
  lvBenchLines,
  mlvuNeedle,
  mlvuPlotQa,
  nextQaCsv,
  videoMmeRows
} from "../../support/benchmarks/BenchmarkInputs.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { writeSampleTreeAs } from "../../support/trees/SampleTree.js"

const tempDir = scopedTempDir("benchmarks")

const submitting = (answer: string) =>
  JSON.stringify({ reflect: {}, plan: {}, action: { tool: "submit_answer", args: { answer } } })

/** The first line of the question the agent is asked. */
const questionOf = (request: Providers.ChatRequest): string =>
  /^Question: (.*)$/m.exec(request.messages[1]?.content ?? "")?.[1] ?? ""

const prompts = Prompts.loadPromptManager(Prompts.packagedPromptsDir("en")).pipe(Effect.provide(NodeContext.layer))

interface Setup {
  readonly files: ReadonlyArray<readonly [string, string]>
  /** What --questions names, inside the temporary folder. */
  readonly questions: string
  readonly load?: (dir: string) => LoadOptions
  /** The letter the model submits, by the question's first line; null: replies nothing readable (unanswered). */
  readonly answers: Readonly<Record<string, string | null>>
  /** Collects the agent's requests, to read what it was told. */
  readonly requests?: Array<Providers.ChatRequest>
}

/**
 * Writes the files, loads the questions, builds a copy of the sample tree for every video, and runs them
 * with a model that submits `answers`. Returns the stored run, its summary and its default export.
 */
const runOn = (setup: Setup, runId = "r1") =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    for (const [name, text] of setup.files) {
      mkdirSync(dirname(join(dir, name)), { recursive: true })
      writeFileSync(join(dir, name), text)
    }
    const loadOptions = setup.load?.(dir) ?? {}
    const loaded = yield* loadQuestionSet(join(dir, setup.questions), loadOptions).pipe(
      Effect.provide(NodeContext.layer)
    )
    const trees = join(dir, "trees")
    for (const videoId of new Set(loaded.questions.map((q) => q.videoId))) writeSampleTreeAs(trees, videoId)
    const model = (request: Providers.ChatRequest) => {
      if (request.role === "agent") setup.requests?.push(request)
      const first = questionOf(request)
      const letter = setup.answers[first]
      if (letter === undefined) throw new Error(`no scripted answer for ${JSON.stringify(first)}`)
      return letter === null ? "I cannot tell." : submitting(letter)
    }
    const layer = Layer.mergeAll(
      Testing.ScriptedLlm.layer(model),
      Testing.ScriptedVlm.layer(() => "-"),
      SqliteRunStore.layer({ filename: join(dir, "runs.db") }),
      MemoryCallBuffer.layer,
      NodeContext.layer
    )
    const options = {
      treesDir: trees,
      questions: loaded.questions,
      benchmark: loaded.benchmark,
      benchmarkFacts: loaded.facts,
      ...(loadOptions.answers === undefined ? {} : { answers: loadOptions.answers }),
      prompts: yield* prompts,
      runId,
      concurrency: 2
    }
    yield* Benchmark.runBenchmark(options).pipe(Effect.provide(layer))
    const stored = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun(runId)).pipe(Effect.provide(layer))
    const summary = summarize(stored)
    const exported = JSON.parse(renderExport(formatOfBenchmark(summary.benchmark), stored.predictions)) as unknown
    return { dir, layer, loaded, options, stored, summary, exported }
  })

const groupsOf = (summary: ReturnType<typeof summarize>, axis: string) =>
  summary.axes.find((a) => a.axis === axis)?.groups.map((
    g
  ) => [g.key, g.correct, g.wrong, g.unanswered, g.unscored, g.total]) ?? []

const firstLine = (text: string) => text.split("\n")[0]!

describe("every benchmark through infer → report → export", () => {
  it.scoped("LVBench: a question counts in each of its types; the export is {uid: letter}, unanswered as a letter it lacks", () =>
    Effect.gen(function*() {
      const { stored, summary, exported } = yield* runOn({
        files: [["video_info.meta.jsonl", jsonl(...lvBenchLines)]],
        questions: "video_info.meta.jsonl",
        answers: {
          "What bird appears at the start of the video?": "A",
          "Why does the fox": "D",
          "What happens after the storm?": null
        }
      })
      assert.strictEqual(summary.benchmark, "lvbench")
      assert.deepStrictEqual([
        summary.overall.correct,
        summary.overall.wrong,
        summary.overall.unanswered,
        summary.overall.total
      ], [1, 1, 1, 3])
      assert.closeTo(summary.overall.accuracy!, 1 / 3, 1e-9)
      assert.deepStrictEqual(groupsOf(summary, "question type"), [
        ["KIR", 0, 1, 0, 0, 1],
        ["EU", 0, 0, 1, 0, 1],
        ["ER", 1, 0, 0, 0, 1],
        ["Rea", 0, 1, 0, 0, 1]
      ])
      assert.isTrue(summary.axes.every((a) => a.groups.every((g) => g.interval !== null)))
      assert.deepStrictEqual(exported, { "1": "A", "2": "D", "3": "E" })
      assert.strictEqual(stored.run.config && (stored.run.config as { benchmark?: string }).benchmark, "lvbench")
      assert.strictEqual(
        stored.predictions.find((p) => p.questionId === "2")?.benchmark?.row &&
          "uid" in (stored.predictions.find((p) => p.questionId === "2")!.benchmark!.row as object),
        true
      )
      assert.include(renderText(summary), "Benchmark LVBench")
      const html = renderHtml({ ...stored, steps: [] }, summary)
      assert.include(html, "<h2>Accuracy per question type</h2>")
      assert.include(html, "<td>Benchmark</td><td>LVBench</td>")
      const fromJson = JSON.parse(renderJson(summary)) as { benchmark: string; axes: ReadonlyArray<{ axis: string }> }
      assert.deepStrictEqual([fromJson.benchmark, fromJson.axes.map((a) => a.axis)], ["lvbench", ["question type"]])
    }))

  it.scoped("MLVU dev: per task, and M-Avg (the mean of the per-task accuracies) beside the overall", () =>
    Effect.gen(function*() {
      const { summary, exported } = yield* runOn({
        files: [["json/1_plotQA.json", json(mlvuPlotQa)], ["json/2_needle.json", json(mlvuNeedle)]],
        questions: "json",
        answers: {
          "What color is the main male character in the video?": "A",
          "Where does the story take place?": "C",
          "What does the hand coming out of the computer do?": "A"
        }
      })
      assert.strictEqual(summary.benchmark, "mlvu")
      assert.closeTo(summary.overall.accuracy!, 2 / 3, 1e-9)
      assert.deepStrictEqual(groupsOf(summary, "task"), [["plotQA", 1, 1, 0, 0, 2], ["needle", 1, 0, 0, 0, 1]])
      assert.deepStrictEqual(summary.primary?.name, "M-Avg")
      assert.closeTo(summary.primary!.value!, 0.75, 1e-9)
      assert.include(renderText(summary), "M-Avg 75.0%")
      assert.strictEqual((JSON.parse(renderJson(summary)) as { primary: unknown }).primary !== null, true)
      assert.deepStrictEqual(
        exported,
        [
          { question_id: "plotQA_0", question_type: "plotQA", option: "A" },
          { question_id: "plotQA_1", question_type: "plotQA", option: "C" },
          { question_id: "needle_0", question_type: "needle", option: "A" }
        ].sort((a, b) => (a.question_id < b.question_id ? -1 : 1))
      )
    }))

  it.scoped("EgoSchema with --answers: a question outside the subset is unscored, apart from wrong; every question exported", () =>
    Effect.gen(function*() {
      const { stored, summary, exported } = yield* runOn({
        files: [["questions.json", json(egoSchemaRows)], ["subset_answers.json", json(egoSchemaSubset)]],
        questions: "questions.json",
        load: (dir) => ({ answers: join(dir, "subset_answers.json") }),
        answers: {
          [firstLine(egoSchemaRows[0]!.question)]: "D",
          [firstLine(egoSchemaRows[1]!.question)]: "A",
          [firstLine(egoSchemaRows[2]!.question)]: "C"
        }
      })
      assert.strictEqual(summary.benchmark, "egoschema")
      assert.deepStrictEqual(
        [
          summary.overall.correct,
          summary.overall.wrong,
          summary.overall.unanswered,
          summary.overall.unscored,
          summary.overall.total
        ],
        [1, 1, 0, 1, 2]
      )
      assert.strictEqual(summary.overall.accuracy, 0.5)
      assert.include(renderText(summary), "1 unscored (no key), letter accuracy over the 2 keyed")
      assert.include(renderHtml({ ...stored, steps: [] }, summary), "<td>Unscored (no key)</td><td>1</td>")
      assert.deepStrictEqual(exported, {
        [egoSchemaRows[0]!.q_uid]: 3,
        [egoSchemaRows[1]!.q_uid]: 0,
        [egoSchemaRows[2]!.q_uid]: 2
      })
    }))

  it.scoped("NExT-QA csv: per type and family; the export is {video_qid: {prediction, answer}} as indices", () =>
    Effect.gen(function*() {
      const { summary, exported } = yield* runOn({
        files: [["val.csv", nextQaCsv]],
        questions: "val.csv",
        answers: {
          "why did the boy pick up one present from the group of them and move to the sofa": "D",
          "what did the man do after he said \"ok, go\"": "A",
          "how many people are there": "A"
        }
      })
      assert.strictEqual(summary.benchmark, "nextqa")
      assert.closeTo(summary.overall.accuracy!, 2 / 3, 1e-9)
      assert.deepStrictEqual(groupsOf(summary, "type"), [["CW", 1, 0, 0, 0, 1], ["TN", 0, 1, 0, 0, 1], [
        "DC",
        1,
        0,
        0,
        0,
        1
      ]])
      assert.deepStrictEqual(groupsOf(summary, "family"), [["Causal", 1, 0, 0, 0, 1], ["Temporal", 0, 1, 0, 0, 1], [
        "Descriptive",
        1,
        0,
        0,
        0,
        1
      ]])
      assert.deepStrictEqual(exported, {
        "4010069381_6": { prediction: 3, answer: 3 },
        "4010069381_7": { prediction: 0, answer: 1 },
        "6233408665_2": { prediction: 0, answer: 0 }
      })
    }))

  it.scoped("LongVideoBench: per question_category and duration_group; unanswered exported as a letter the question lacks", () =>
    Effect.gen(function*() {
      const { summary, exported } = yield* runOn({
        files: [["lvb_val.json", json(longVideoBenchRows)]],
        questions: "lvb_val.json",
        answers: { [longVideoBenchRows[0]!.question]: "D", [longVideoBenchRows[1]!.question]: null }
      })
      assert.strictEqual(summary.benchmark, "longvideobench")
      assert.deepStrictEqual([summary.overall.correct, summary.overall.unanswered, summary.overall.total], [1, 1, 2])
      assert.deepStrictEqual(groupsOf(summary, "question category"), [["S2E", 0, 0, 1, 0, 1], ["TOS", 1, 0, 0, 0, 1]])
      assert.deepStrictEqual(groupsOf(summary, "duration group"), [["15", 0, 0, 1, 0, 1], ["600", 1, 0, 0, 0, 1]])
      assert.deepStrictEqual(exported, { "-8lu-6Vx8as_1": "F", "86CxyhFV9MI_0": "D" })
    }))

  it.scoped("Video-MME: the export carries the rows' own video_id, sub_category and url; report as today", () =>
    Effect.gen(function*() {
      const { summary, exported } = yield* runOn({
        files: [["videomme.jsonl", jsonl(...videoMmeRows)]],
        questions: "videomme.jsonl",
        answers: {
          [videoMmeRows[0]!.question]: "C",
          [videoMmeRows[1]!.question]: "B",
          [videoMmeRows[2]!.question]: null
        }
      })
      assert.strictEqual(summary.benchmark, "videomme")
      assert.deepStrictEqual(summary.axes.map((a) => a.axis), ["task type", "duration", "domain"])
      assert.deepStrictEqual(summary.byDuration.map((g) => [g.key, g.total]), [["short", 2], ["long", 1]])
      const videos = exported as ReadonlyArray<Record<string, unknown>>
      assert.deepStrictEqual(videos.map((v) => [v.video_id, v.sub_category, v.url]), [
        ["001", "Humanity & History", "https://www.youtube.com/watch?v=fFjv93ACGo8"],
        ["601", "Football", videoMmeRows[2]!.url]
      ])
      assert.deepStrictEqual(
        (videos[1]!.questions as ReadonlyArray<{ response: string }>).map((q) => q.response),
        [""]
      )
    }))
})

describe("the run keeps its benchmark", () => {
  it.scoped("hints: NExT-QA's codes reach the agent by name with the code, with the category's skill; the run keeps both", () =>
    Effect.gen(function*() {
      const requests: Array<Providers.ChatRequest> = []
      const { stored } = yield* runOn({
        files: [["val.csv", nextQaCsv]],
        questions: "val.csv",
        requests,
        answers: {
          "why did the boy pick up one present from the group of them and move to the sofa": "D",
          "what did the man do after he said \"ok, go\"": "A",
          "how many people are there": "A"
        }
      })
      const told = (first: string) => requests.find((r) => questionOf(r) === first)!
      const whyAsked = told("why did the boy pick up one present from the group of them and move to the sofa")
      assert.include(whyAsked.messages[1]!.content, `Task type: causal "why" (CW)`)
      assert.include(whyAsked.messages[0]!.content, "## Skill: action reasoning")
      const count = told("how many people are there")
      assert.include(count.messages[1]!.content, "Task type: descriptive count (DC)")
      assert.include(count.messages[0]!.content, "## Skill: counting")
      const hints = Object.fromEntries(stored.predictions.map((p) => [p.questionId, p.benchmark?.hint]))
      assert.deepStrictEqual(hints["4010069381_6"], { taskType: `causal "why" (CW)`, skill: "action-reasoning" })
      assert.deepStrictEqual(hints["6233408665_2"], { taskType: "descriptive count (DC)", skill: "counting" })
      const why = stored.predictions.find((p) => p.questionId === "4010069381_6")!
      const { body } = trajectoryParts(why, [], [])
      assert.include(body, `<td>Task type shown</td><td>causal &quot;why&quot; (CW)</td>`)
      assert.include(body, "<td>Skill</td><td>action-reasoning</td>")
    }))

  it.scoped("hints: EgoSchema questions say who C is and get the first-person skill; LVBench shows every type", () =>
    Effect.gen(function*() {
      const requests: Array<Providers.ChatRequest> = []
      yield* runOn({
        files: [["questions.json", json(egoSchemaRows.slice(0, 1))]],
        questions: "questions.json",
        requests,
        answers: { [firstLine(egoSchemaRows[0]!.question)]: "A" }
      })
      assert.match(requests[0]!.messages[1]!.content, /"C" \(or "c"\) is the person wearing the camera/)
      assert.include(requests[0]!.messages[0]!.content, "## Skill: first-person video")
      const lv: Array<Providers.ChatRequest> = []
      const { loaded } = yield* runOn({
        files: [["video_info.meta.jsonl", jsonl(...lvBenchLines)]],
        questions: "video_info.meta.jsonl",
        requests: lv,
        answers: Object.fromEntries(
          lvBenchLines.flatMap((line) => line.qa.map((qa) => [firstLine(qa.question), "A"]))
        )
      }, "r2")
      const several = loaded.questions.find((q) =>
        (loaded.facts.get(q.questionId)?.categories[0]?.labels.length ?? 0) > 1
      )
      assert.isDefined(several)
      const labels = loaded.facts.get(several!.questionId)!.categories[0]!.labels
      const request = lv.find((r) => questionOf(r) === firstLine(several!.question))!
      for (const label of labels) assert.match(request.messages[1]!.content, new RegExp(`Task type: .*\\(${label}\\)`))
    }))

  it.scoped("a hand-written file without task_type runs as custom; a task_type of any benchmark picks its skill", () =>
    Effect.gen(function*() {
      const requests: Array<Providers.ChatRequest> = []
      const rows = [
        { videoID: "v1", question_id: "q1", question: "How many cups?", options: ["1", "2"], answer: "B" },
        { videoID: "v1", question_id: "q2", question: "What is on the table?", options: ["a cup", "a pen"] },
        {
          videoID: "v1",
          question_id: "q3",
          question: "How many plates?",
          options: ["A. 1", "B. 2"],
          task_type: "Counting Problem"
        }
      ]
      const { exported, loaded, summary } = yield* runOn({
        files: [["mine.jsonl", jsonl(...rows)]],
        questions: "mine.jsonl",
        requests,
        answers: { "How many cups?": "B", "What is on the table?": "A", "How many plates?": null }
      })
      assert.strictEqual(loaded.benchmark, "custom")
      assert.strictEqual(summary.benchmark, "custom")
      assert.deepStrictEqual([summary.overall.correct, summary.overall.unscored], [1, 2])
      const plates = requests.find((r) => questionOf(r) === "How many plates?")!
      assert.include(plates.messages[0]!.content, "## Skill: counting")
      const cups = requests.find((r) => questionOf(r) === "How many cups?")!
      assert.notInclude(cups.messages[1]!.content, "Task type")
      assert.include(cups.messages[0]!.content, "## Skill: general questions")
      assert.deepStrictEqual(exported, [
        { question_id: "q1", videoID: "v1", answer: "B", prediction: "B" },
        { question_id: "q2", videoID: "v1", answer: null, prediction: "A" },
        { question_id: "q3", videoID: "v1", answer: null, prediction: null }
      ])
    }))

  it.scoped("--resume continues an LVBench run as LVBench, and refuses another --benchmark in one line", () =>
    Effect.gen(function*() {
      const { layer, options, summary } = yield* runOn({
        files: [["video_info.meta.jsonl", jsonl(...lvBenchLines)]],
        questions: "video_info.meta.jsonl",
        answers: {
          "What bird appears at the start of the video?": "A",
          "Why does the fox": "C",
          "What happens after the storm?": "B"
        }
      }, "lv")
      assert.strictEqual(summary.benchmark, "lvbench")
      const refused = yield* Effect.flip(
        Benchmark.runBenchmark({ ...options, benchmark: "videomme", resume: true }).pipe(Effect.provide(layer))
      )
      assert.instanceOf(refused, Benchmark.InferError)
      assert.strictEqual(
        refused.message,
        "--benchmark videomme: run lv is a lvbench run — resume it with --benchmark lvbench, or start a new run"
      )
      yield* Benchmark.runBenchmark({ ...options, resume: true, retryErrors: true }).pipe(Effect.provide(layer))
      const again = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("lv")).pipe(Effect.provide(layer))
      assert.strictEqual((again.run.config as { benchmark?: string }).benchmark, "lvbench")
      assert.strictEqual(summarize(again).overall.accuracy, 1)
    }))

  it.scoped("--resume of a run whose keys came with --answers refuses to go on without them", () =>
    Effect.gen(function*() {
      const { dir, layer, options } = yield* runOn({
        files: [["questions.json", json(egoSchemaRows)], ["subset_answers.json", json(egoSchemaSubset)]],
        questions: "questions.json",
        load: (dir) => ({ answers: join(dir, "subset_answers.json") }),
        answers: Object.fromEntries(egoSchemaRows.map((r) => [firstLine(r.question), "A"]))
      }, "ego")
      const { answers: _, ...without } = options
      const refused = yield* Effect.flip(
        Benchmark.runBenchmark({ ...without, resume: true }).pipe(Effect.provide(layer))
      )
      assert.strictEqual(
        refused.message,
        `--answers (none): run ego was started with --answers ${
          join(dir, "subset_answers.json")
        } — resume it with the same keys, or start a new run`
      )
      yield* Benchmark.runBenchmark({ ...options, resume: true }).pipe(Effect.provide(layer))
    }))

  it.scoped("a database from before benchmarks were kept opens, and its run reads and exports as Video-MME", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, "old.db")
      // The schema as it stood before 0008: later migrations left out too.
      const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => Number.parseInt(id, 10) < 8))
      yield* Effect.gen(function*() {
        yield* SqliteMigrator.make({})({ loader: SqliteMigrator.fromRecord(before) })
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO runs (run_id, started_at, finished_at, status, config_json) VALUES ('old', 1, 2, 'completed', '{}')`
        yield* sql`INSERT INTO predictions (run_id, question_id, video_id, task_type, duration, question, options_json, answer,
          prediction, correct, steps_used, stop_reason, prompt_tokens, completion_tokens, started_at, finished_at)
          VALUES ('old', 'q1', 'vid1', 'Counting Problem', 'short', 'Q?', '["A. x","B. y"]', 'B', 'B', 1, 1, 'finished', 10, 2, 1, 2),
                 ('old', 'q2', 'vid1', 'Counting Problem', 'short', 'Q2?', '["A. x","B. y"]', NULL, 'A', 0, 1, 'finished', 10, 2, 1, 2)`
      }).pipe(Effect.provide(SqliteClient.layer({ filename: file })))
      // Read-only first (a report never migrates), then opened for writing (migrated).
      for (const readOnly of [true, false]) {
        const loaded = yield* Effect.flatMap(Store.RunStore, (store) => store.loadRun("old")).pipe(
          Effect.provide(SqliteRunStore.layer({ filename: file, mustExist: true, readOnly }))
        )
        assert.deepStrictEqual(loaded.predictions.map((p) => p.benchmark ?? null), [null, null])
        const summary = summarize(loaded)
        assert.strictEqual(summary.benchmark, "videomme")
        assert.deepStrictEqual([summary.overall.correct, summary.overall.unscored, summary.overall.total], [1, 1, 1])
        assert.deepStrictEqual(JSON.parse(renderExport("videomme", loaded.predictions)), [{
          video_id: "vid1",
          duration: "short",
          domain: null,
          sub_category: null,
          duration_category: "short",
          video_category: null,
          video_subcategory: null,
          missing: false,
          questions: [
            {
              question_id: "q1",
              task_type: "Counting Problem",
              question: "Q?",
              options: ["A. x", "B. y"],
              answer: "B",
              response: "B"
            },
            {
              question_id: "q2",
              task_type: "Counting Problem",
              question: "Q2?",
              options: ["A. x", "B. y"],
              answer: null,
              response: "A"
            }
          ]
        }])
      }
    }))
})
