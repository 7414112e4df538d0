// Benchmark categories as the agent sees them: readable names beside the codes, and the skill each maps to,
// all from the pack's categories.json (en and zh).
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { benchmarks } from "../../../src/programs/benchmarks/Registry.js"
import { loadPromptManager, packagedPromptsDir } from "../../../src/programs/prompts/PromptPack.js"
import { editedPack, loadError } from "../../support/agent/EditedPack.js"

const en = packagedPromptsDir("en")
const zh = packagedPromptsDir("zh")

const withCategories = (value: unknown) =>
  editedPack((fs, dir) => fs.writeFileString(`${dir}/categories.json`, JSON.stringify(value)))

const question = { question: "Why?", options: ["A. x", "B. y"], rootIds: ["v_L1_000"] }

describe("the packaged category maps", () => {
  it.effect("give every category of every benchmark a readable name with its code, and the same skill in en and zh", () =>
    Effect.gen(function*() {
      const english = yield* loadPromptManager(en)
      const chinese = yield* loadPromptManager(zh)
      let count = 0
      for (const b of benchmarks) {
        for (const code of b.taskTypes) {
          count++
          const e = english.hint({ benchmark: b.name, taskType: code })
          const c = chinese.hint({ benchmark: b.name, taskType: code })
          const where = `${b.name} ${code}`
          if (b.name !== "videomme") assert.match(e.taskType, new RegExp(`^\\S.* \\(${code}\\)$`), where)
          assert.match(c.taskType, new RegExp(`^\\S.* \\(${code}\\)$`), where)
          assert.notStrictEqual(c.taskType, `${code} (${code})`, where)
          assert.strictEqual(c.skill, e.skill, where)
          assert.isNotNull(e.skill, where)
        }
      }
      // 12 Video-MME + 6 LVBench + 17 LongVideoBench + 9 MLVU + 8 NExT-QA
      assert.strictEqual(count, 52)
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))

  it.effect("map categories to the skills that fit them", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const skillOf = (benchmark: string, taskType: string) => pm.hint({ benchmark, taskType }).skill
      assert.deepStrictEqual(
        [
          skillOf("videomme", "OCR Problems"),
          skillOf("videomme", "Counting Problem"),
          skillOf("nextqa", "DC"),
          skillOf("nextqa", "CW"),
          skillOf("nextqa", "TP"),
          skillOf("lvbench", "Sum"),
          skillOf("lvbench", "TG"),
          skillOf("lvbench", "ER"),
          skillOf("longvideobench", "T2A"),
          skillOf("longvideobench", "SSS"),
          skillOf("mlvu", "needle"),
          skillOf("mlvu", "count"),
          skillOf("mlvu", "ego"),
          skillOf("egoschema", "")
        ],
        [
          "ocr",
          "counting",
          "counting",
          "action-reasoning",
          "temporal-reasoning",
          "synopsis",
          "temporal-perception",
          "object-recognition",
          "attribute-perception",
          "temporal-reasoning",
          "detail-retrieval",
          "counting",
          "egocentric",
          "egocentric"
        ]
      )
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("prompt assembly per benchmark", () => {
  it.effect("NExT-QA: the user prompt reads the type by name with its code; auto mode adds its skill", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const user = pm.userPrompt({ ...question, benchmark: "nextqa", taskType: "CW" })
      assert.include(user, `Task type: causal "why" (CW)`)
      const system = pm.systemPrompt({ skillMode: "auto", benchmark: "nextqa", taskType: "CW" })
      assert.include(system, "## Skill: action reasoning")
      assert.notInclude(system, "## Skill: general questions")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("Video-MME: the task type reads as before in en, by its Chinese name beside the code in zh", () =>
    Effect.gen(function*() {
      const english = yield* loadPromptManager(en)
      const chinese = yield* loadPromptManager(zh)
      const input = { ...question, benchmark: "videomme", taskType: "Counting Problem" }
      assert.include(english.userPrompt(input), "Task type: Counting Problem\n")
      assert.match(chinese.userPrompt(input), /题型：\S+ \(Counting Problem\)\n/)
      assert.include(chinese.systemPrompt({ skillMode: "auto", ...input }), "## 技能：计数")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("LVBench: every question type is shown; the first one with a skill picks it", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const kind = { benchmark: "lvbench", taskType: "ER", taskTypes: ["ER", "KIR"] }
      assert.include(
        pm.userPrompt({ ...question, ...kind }),
        "Task type: entity recognition (ER), key information retrieval (KIR)"
      )
      assert.strictEqual(pm.hint(kind).skill, "object-recognition")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("LongVideoBench and MLVU: codes read as their categories", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      assert.include(
        pm.userPrompt({ ...question, benchmark: "longvideobench", taskType: "TOS" }),
        "Task type: text-referred object tracking (TOS)"
      )
      assert.include(
        pm.userPrompt({ ...question, benchmark: "mlvu", taskType: "anomaly_reco" }),
        "Task type: anomaly recognition (anomaly_reco)"
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("EgoSchema: both packs say that C is the camera wearer, and auto mode adds the egocentric skill", () =>
    Effect.gen(function*() {
      const english = yield* loadPromptManager(en)
      const chinese = yield* loadPromptManager(zh)
      const input = { ...question, benchmark: "egoschema", taskType: "" }
      const user = english.userPrompt(input)
      assert.match(user, /"C" .*the person wearing the camera/)
      assert.notInclude(user, "Task type")
      assert.notMatch(user, /\{\{\w+\}\}|\n{3}/)
      assert.match(chinese.userPrompt(input), /“C”.*佩戴摄像机的人/)
      assert.include(english.systemPrompt({ skillMode: "auto", ...input }), "## Skill: first-person video")
      // The note is the benchmark's, not the pack's: other benchmarks do not get it.
      assert.notInclude(english.userPrompt({ ...question, benchmark: "nextqa", taskType: "CW" }), "camera")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("custom (or no benchmark): a label of any benchmark is understood; an unknown one is shown as written", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      for (const benchmark of ["custom", undefined]) {
        const kind = (taskType: string) => ({ taskType, ...(benchmark === undefined ? {} : { benchmark }) })
        assert.deepStrictEqual(pm.hint(kind("Counting Problem")).skill, "counting")
        assert.deepStrictEqual(pm.hint(kind("cw")), {
          taskType: `causal "why" (CW)`,
          skill: "action-reasoning",
          note: ""
        })
        assert.deepStrictEqual(pm.hint(kind("Juggling")), { taskType: "Juggling", skill: "general", note: "" })
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a real benchmark does not borrow another's codes", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      assert.deepStrictEqual(pm.hint({ benchmark: "videomme", taskType: "CW" }), {
        taskType: "CW",
        skill: "general",
        note: ""
      })
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("categories.json is checked when the pack loads", () => {
  it.effect("a skill that does not exist, or is always on, is refused naming the entry", () =>
    Effect.gen(function*() {
      const missing = yield* withCategories({ nextqa: { categories: { CW: { name: "why", skill: "juggling" } } } })
      assert.match(
        yield* loadError(missing),
        /categories\.json: nextqa\.categories\.CW\.skill: no skill named "juggling" in skills\/ — use one of .*counting/
      )
      const always = yield* withCategories({ nextqa: { skill: "strategy" } })
      assert.include(yield* loadError(always), `nextqa.skill: "strategy" is always on`)
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))

  it.effect("an unknown benchmark, an unknown key or bad JSON is refused in one line", () =>
    Effect.gen(function*() {
      const benchmark = yield* withCategories({ activitynet: { note: "x" } })
      assert.match(
        yield* loadError(benchmark),
        /categories\.json: "activitynet" is no benchmark vtree reads — use one of videomme, .*custom/
      )
      const key = yield* withCategories({ nextqa: { categories: { CW: { name: "why", skil: "counting" } } } })
      assert.include(yield* loadError(key), `nextqa.categories.CW: unknown key "skil"`)
      const empty = yield* withCategories({ nextqa: { categories: { CW: { name: "" } } } })
      assert.include(yield* loadError(empty), "nextqa.categories.CW.name: expected non-empty text")
      const syntax = yield* editedPack((fs, dir) => fs.writeFileString(`${dir}/categories.json`, "{ nope"))
      const message = yield* loadError(syntax)
      assert.include(message, "categories.json: not valid JSON")
      assert.notInclude(message, "\n")
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))

  it.effect("a pack without the file still loads: labels as written, skills by their task_type header", () =>
    Effect.gen(function*() {
      const dir = yield* editedPack((fs, d) =>
        Effect.gen(function*() {
          yield* fs.remove(`${d}/categories.json`)
          yield* fs.writeFileString(
            `${d}/skills/zz_count.md`,
            "---\nname: legacy-count\ntask_type: Counting Problem\n---\n## Skill: legacy counting\nCount them."
          )
        })
      )
      const pm = yield* loadPromptManager(dir)
      assert.deepStrictEqual(pm.hint({ benchmark: "nextqa", taskType: "CW" }), {
        taskType: "CW",
        skill: "general",
        note: ""
      })
      assert.strictEqual(pm.hint({ benchmark: "videomme", taskType: "Counting Problem" }).skill, "legacy-count")
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)))
})
