import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { VideoMmeTaskTypes } from "../../../src/domain/Question.js"
import { labelKeys, toolPromptNames, toolPromptVariables } from "../../../src/programs/prompts/PromptManager.js"
import { loadPromptManager, packagedPromptsDir, packFiles } from "../../../src/programs/prompts/PromptPack.js"
import { editedPack, loadError } from "../../support/agent/EditedPack.js"

const en = packagedPromptsDir("en")
const zh = packagedPromptsDir("zh")

describe("packaged packs", () => {
  it.effect("both load, with the same label keys and the same skills", () =>
    Effect.gen(function*() {
      const english = yield* loadPromptManager(en)
      const chinese = yield* loadPromptManager(zh)
      assert.deepStrictEqual(Object.keys(english.labels).sort(), [...labelKeys].sort())
      assert.deepStrictEqual(Object.keys(chinese.labels).sort(), [...labelKeys].sort())
      const shape = (skills: typeof english.skills) => skills.map((s) => `${s.name}|${s.always}|${s.taskType}`).sort()
      assert.deepStrictEqual(shape(chinese.skills), shape(english.skills))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("ship one always skill, _default, and a skill of its own for each Video-MME task type (categories.json)", () =>
    Effect.gen(function*() {
      for (const dir of [en, zh]) {
        const pm = yield* loadPromptManager(dir)
        const { skills } = pm
        assert.strictEqual(skills.filter((s) => s.always).length, 1, dir)
        assert.deepStrictEqual(skills.flatMap((s) => (s.taskType === null ? [] : [s.taskType])), ["_default"], dir)
        const mapped = VideoMmeTaskTypes.map((taskType) => pm.hint({ benchmark: "videomme", taskType }).skill)
        assert.strictEqual(new Set(mapped).size, VideoMmeTaskTypes.length, dir)
        assert.notInclude(mapped, "general", dir)
        for (const s of skills) assert.isAbove(s.body.length, 400, `${dir}: ${s.name} is too thin`)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("zh labels are the original markers", () =>
    Effect.gen(function*() {
      const { labels } = yield* loadPromptManager(zh)
      assert.deepInclude(labels, {
        node: "[节点]",
        levelScene: "场景",
        levelEvent: "事件",
        levelFrame: "帧",
        summary: "[内容摘要]",
        verified: "[核实]",
        entities: "[实体]",
        onScreenText: "[画面文字]",
        children: "[子节点概览]",
        starStrong: "★★",
        starWeak: "★",
        searchResults: "[搜索结果]",
        subtitleContext: "[字幕上下文]",
        visualObservation: "[视觉观察]",
        check: "[验证]",
        summaryError: "[摘要错误]",
        visionError: "[VL错误]",
        skipped: "跳过（调用失败）",
        ok: "[ok]",
        answerSubmitted: "答案已提交"
      })
      const english = yield* loadPromptManager(en)
      assert.strictEqual(english.labels.summary, "[Summary]")
      assert.strictEqual(english.labels.skipped, "skipped (call failed)")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("verify prompts end with the details/confidence line and children prompts ask for star lines", () =>
    Effect.gen(function*() {
      for (const dir of [en, zh]) {
        const pm = yield* loadPromptManager(dir)
        for (const name of toolPromptNames) {
          const vars = Object.fromEntries(toolPromptVariables[name].map((v) => [v, `<${v}>`]))
          const text = pm.toolPrompt(name, vars).trimEnd()
          assert.notMatch(text, /\{\{\w+\}\}/, `${dir}/${name} left a placeholder`)
          if (name.endsWith("_verify")) {
            assert.match(text.split("\n").at(-1)!, /^details=.*; confidence=/, `${dir}/${name}`)
          }
          if (name.startsWith("view_node_children")) {
            assert.include(text, "★★ <child_id> — ")
            assert.include(text, "★ <child_id> — ")
          }
        }
      }
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("systemPrompt", () => {
  const taskSkillHeadings = ["## Skill: counting", "## Skill: temporal perception", "## Skill: general questions"]

  it.effect("auto + Counting Problem holds the counting skill, no other task skill, and no read_skill", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const text = pm.systemPrompt({ skillMode: "auto", taskType: "Counting Problem" })
      assert.include(text, "## Strategy (applies to every question)")
      assert.include(text, "## Skill: counting")
      const taskSkills = pm.skills.filter((s) => !s.always && s.name !== "counting")
      for (const s of taskSkills) assert.notInclude(text, s.body, s.name)
      assert.notInclude(text, "read_skill")
      assert.notInclude(text, "external_search")
      for (const tool of ["### view_node", "### search_similar", "### observe_frame", "### submit_answer"]) {
        assert.include(text, tool)
      }
      assert.include(text, "at most 15 tool calls")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("auto falls back to _default for an unknown or missing task type", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      for (const taskType of ["Juggling", undefined]) {
        const text = pm.systemPrompt({ skillMode: "auto", ...(taskType ? { taskType } : {}) })
        assert.include(text, "## Skill: general questions")
        assert.notInclude(text, "## Skill: counting")
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("manual lists the catalog and read_skill, with only the always skill inline", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const text = pm.systemPrompt({ skillMode: "manual", taskType: "Counting Problem" })
      assert.include(text, "### read_skill")
      for (const s of pm.skills.filter((s) => !s.always)) assert.include(text, `- **${s.name}**: ${s.description}`)
      assert.include(text, "## Strategy (applies to every question)")
      for (const heading of taskSkillHeadings) assert.notInclude(text, heading)
      assert.strictEqual(pm.readSkill("counting"), pm.skills.find((s) => s.name === "counting")!.body)
      assert.isUndefined(pm.readSkill("strategy"))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("none has neither skills nor read_skill", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const text = pm.systemPrompt({ skillMode: "none", taskType: "Counting Problem" })
      assert.notInclude(text, "read_skill")
      assert.notInclude(text, "## Strategy")
      for (const heading of taskSkillHeadings) assert.notInclude(text, heading)
      assert.notMatch(text, /\{\{\w+\}\}/)
      assert.notMatch(text, /\n{3}/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("web search adds the external tools; max steps is written in", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(zh)
      const text = pm.systemPrompt({ skillMode: "none", webSearch: true, maxSteps: 9 })
      assert.include(text, "### external_search")
      assert.include(text, "### external_read")
      assert.include(text, "最多可以调用 9 次工具")
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("userPrompt and toolPrompt", () => {
  it.effect("user prompt: question, one option per line, sorted roots, task type when given", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const input = {
        question: "How many dogs appear?",
        options: ["A. One", "B. Two ", "C. Three"],
        rootIds: ["v_L1_002", "v_L1_000", "v_L1_001"]
      }
      const withType = pm.userPrompt({ ...input, taskType: "Counting Problem" })
      assert.include(withType, "Question: How many dogs appear?")
      assert.include(withType, "A. One\nB. Two\nC. Three")
      assert.include(withType, "v_L1_000, v_L1_001, v_L1_002")
      assert.include(withType, "Task type: Counting Problem")
      const withoutType = pm.userPrompt(input)
      assert.notInclude(withoutType, "Task type")
      assert.notMatch(withoutType, /\{\{\w+\}\}|\n{3}/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("toolPrompt fills once: braces inside values are not expanded, unknown placeholders stay", () =>
    Effect.gen(function*() {
      const pm = yield* loadPromptManager(en)
      const text = pm.toolPrompt("view_node_extract", {
        question: "What is said about {{node_id}}?",
        node_id: "v_L1_000",
        level: "Scene",
        time_range: "0-300s",
        node_text: "card text"
      })
      assert.include(text, "Question: What is said about {{node_id}}?")
      assert.include(text, "Node: v_L1_000 (Scene, 0-300s)")
      const partial = pm.toolPrompt("view_node_extract", { question: "q" })
      assert.include(partial, "{{node_text}}")
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("loadPromptManager errors", () => {
  it.scoped("a missing file is named", () =>
    Effect.gen(function*() {
      for (const file of packFiles) {
        const dir = yield* editedPack((fs, d) => fs.remove(`${d}/${file}`))
        const message = yield* loadError(dir)
        assert.include(message, `${dir}/${file}: missing`)
      }
      const noSkills = yield* editedPack((fs, d) => fs.remove(`${d}/skills`, { recursive: true }))
      assert.include(yield* loadError(noSkills), "skills: missing")
      assert.include(yield* loadError("/nonexistent/pack"), "/nonexistent/pack: prompt pack folder not found")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a missing, unknown or empty label is named with the file", () =>
    Effect.gen(function*() {
      const rewrite = (f: (labels: Record<string, string>) => void) =>
        editedPack((fs, d) =>
          Effect.gen(function*() {
            const labels = JSON.parse(yield* fs.readFileString(`${d}/labels.json`)) as Record<string, string>
            f(labels)
            yield* fs.writeFileString(`${d}/labels.json`, JSON.stringify(labels))
          })
        )
      const missing = yield* rewrite((l) => delete l.verified)
      assert.include(yield* loadError(missing), `${missing}/labels.json: missing label "verified"`)
      const unknown = yield* rewrite((l) => void (l.verifed = "x"))
      assert.include(yield* loadError(unknown), `unknown label "verifed"`)
      const empty = yield* rewrite((l) => void (l.ok = ""))
      assert.include(yield* loadError(empty), `label "ok": expected non-empty text`)
      const noTool = yield* rewrite((l) => void (l.unknownToolMessage = "no such tool"))
      assert.include(yield* loadError(noTool), "{{tool}} and {{tools}}")
      const notJson = yield* editedPack((fs, d) => fs.writeFileString(`${d}/labels.json`, "{ oops"))
      assert.include(yield* loadError(notJson), "labels.json: not valid JSON")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a missing or unknown placeholder is named with the file", () =>
    Effect.gen(function*() {
      const edit = (file: string, f: (text: string) => string) =>
        editedPack((fs, d) =>
          Effect.flatMap(fs.readFileString(`${d}/${file}`), (text) => fs.writeFileString(`${d}/${file}`, f(text)))
        )
      const noDraft = yield* edit("observe_frame_verify.md", (t) => t.replaceAll("{{draft}}", "the draft"))
      assert.include(yield* loadError(noDraft), `${noDraft}/observe_frame_verify.md: missing placeholder {{draft}}`)
      const stray = yield* edit("view_node_extract.md", (t) => `${t}\n{{subtitle}}`)
      assert.include(yield* loadError(stray), "view_node_extract.md: unknown placeholder {{subtitle}}")
      const noTools = yield* edit("system.md", (t) => t.replace("{{tools}}", ""))
      assert.include(yield* loadError(noTools), "system.md: missing placeholder {{tools}}")
      const noCatalog = yield* edit("tools.md", (t) => t.replace("{{catalog}}", ""))
      assert.include(yield* loadError(noCatalog), "tools.md: ## read_skill: missing placeholder {{catalog}}")
      const noSection = yield* edit("tools.md", (t) => t.replace("## observe_frame", "## observe_frames"))
      assert.include(yield* loadError(noSection), `no "## observe_frame" section`)
      const noEnding = yield* edit("view_node_verify.md", (t) => t.replace(/details=.*$/m, "Reply briefly."))
      assert.include(yield* loadError(noEnding), "details=…; confidence=0..1")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("skills: nameless files are skipped, bad frontmatter and duplicates are errors", () =>
    Effect.gen(function*() {
      const skipped = yield* editedPack((fs, d) =>
        fs.writeFileString(`${d}/skills/notes.md`, "---\ndescription: a draft, not a skill\n---\nbody")
      )
      const pm = yield* loadPromptManager(skipped)
      assert.strictEqual(pm.skills.length, 16)
      const bad = yield* editedPack((fs, d) =>
        fs.writeFileString(`${d}/skills/bad.md`, "---\nname: bad\nalways: maybe\n---\n")
      )
      assert.include(yield* loadError(bad), `${bad}/skills/bad.md: always: expected true or false`)
      const unclosed = yield* editedPack((fs, d) => fs.writeFileString(`${d}/skills/open.md`, "---\nname: open\n"))
      assert.include(yield* loadError(unclosed), "skills/open.md: frontmatter opened")
      const twin = yield* editedPack((fs, d) =>
        fs.writeFileString(`${d}/skills/zz.md`, "---\nname: general2\ntask_type: _default\n---\nbody")
      )
      assert.include(yield* loadError(twin), "skills/zz.md: task_type: \"_default\" is already covered")
    }).pipe(Effect.provide(NodeContext.layer)))
})
