import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { promptCommand } from "../../../src/cli/prompt/PromptCommand.js"

/** Runs `vtree prompt …` in-process and returns what it wrote to stdout and stderr. */
const runPrompt = (...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const run = Command.run(promptCommand, { name: "vtree", version: "test" })
    const exit = yield* Console.consoleWith((real) =>
      Effect.withConsole(run(["node", "vtree", ...args]), {
        ...real,
        log: (...xs: ReadonlyArray<unknown>) => Effect.sync(() => void out.push(xs.join(" "))),
        error: (...xs: ReadonlyArray<unknown>) => Effect.sync(() => void err.push(xs.join(" ")))
      })
    ).pipe(Effect.exit)
    return { exit, stdout: out.join("\n"), stderr: err.join("\n") }
  }).pipe(Effect.provide(NodeContext.layer))

describe("vtree prompt", () => {
  it.effect("auto + Counting Problem prints the counting skill and no read_skill", () =>
    Effect.gen(function*() {
      const { exit, stderr, stdout } = yield* runPrompt("--skill-mode", "auto", "--task-type", "Counting Problem")
      assert.isTrue(exit._tag === "Success")
      assert.include(stdout, "## Skill: counting")
      assert.notInclude(stdout, "## Skill: general questions")
      assert.notInclude(stdout, "read_skill")
      assert.strictEqual(stderr, "vtree: Video-MME Counting Problem: shown as Counting Problem; skill counting")
    }))

  it.effect("takes any benchmark's categories: MLVU's needle without --benchmark, NExT-QA's CW with it", () =>
    Effect.gen(function*() {
      const needle = yield* runPrompt("--task-type", "needle")
      assert.isTrue(needle.exit._tag === "Success")
      assert.include(needle.stdout, "## Skill: finding one detail")
      assert.strictEqual(needle.stderr, "vtree: MLVU needle: shown as needle QA (needle); skill detail-retrieval")
      const cw = yield* runPrompt("--task-type", "cw", "--benchmark", "NExT-QA")
      assert.isTrue(cw.exit._tag === "Success")
      assert.include(cw.stdout, "## Skill: action reasoning")
      assert.strictEqual(cw.stderr, `vtree: NExT-QA CW: shown as causal "why" (CW); skill action-reasoning`)
    }))

  it.effect("--benchmark egoschema alone prints the egocentric skill and says what the user prompt adds", () =>
    Effect.gen(function*() {
      const { exit, stderr, stdout } = yield* runPrompt("--benchmark", "egoschema")
      assert.isTrue(exit._tag === "Success")
      assert.include(stdout, "## Skill: first-person video")
      assert.match(stderr, /^vtree: EgoSchema: skill egocentric; the question adds: .*wearing the camera/)
    }))

  it.effect("a category the benchmark does not have is refused naming its own", () =>
    Effect.gen(function*() {
      const { exit, stdout } = yield* runPrompt("--task-type", "Counting Problem", "--benchmark", "nextqa")
      assert.isTrue(exit._tag === "Failure")
      if (exit._tag === "Failure") {
        assert.include(
          String(exit.cause),
          `--task-type "Counting Problem": not a category of NExT-QA — use one of: CW, CH, TN, TC, TP, DC, DL, DO`
        )
      }
      assert.strictEqual(stdout, "")
      const unknown = yield* runPrompt("--benchmark", "activitynet")
      assert.isTrue(unknown.exit._tag === "Failure")
      if (unknown.exit._tag === "Failure") {
        assert.include(String(unknown.exit.cause), `"activitynet" is no benchmark vtree reads`)
      }
    }))

  it.effect("manual prints the catalog and read_skill; none prints neither", () =>
    Effect.gen(function*() {
      const manual = yield* runPrompt("--skill-mode", "manual")
      assert.include(manual.stdout, "### read_skill")
      assert.include(manual.stdout, "- **counting**: ")
      const none = yield* runPrompt("--skill-mode", "none")
      assert.notInclude(none.stdout, "read_skill")
      assert.notInclude(none.stdout, "- **counting**: ")
      assert.notInclude(none.stdout, "## Strategy")
    }))

  it.effect("an unknown task type is refused with every benchmark's list, nothing printed", () =>
    Effect.gen(function*() {
      const { exit, stdout } = yield* runPrompt("--task-type", "Juggling")
      assert.isTrue(exit._tag === "Failure")
      if (exit._tag === "Failure") {
        assert.match(
          String(exit.cause),
          /--task-type "Juggling": not a category of any benchmark or of \S+ — use one of: Video-MME: Temporal Perception, .*Counting Problem.*; NExT-QA: CW, CH/
        )
      }
      assert.strictEqual(stdout, "")
    }))

  it.effect("--prompts zh --web-search prints the Chinese pack with the external tools", () =>
    Effect.gen(function*() {
      const { stdout } = yield* runPrompt("--prompts", "zh", "--web-search", "--task-type", "OCR Problems")
      assert.include(stdout, "# 你的角色")
      assert.include(stdout, "## 技能：读取画面文字")
      assert.include(stdout, "### external_search")
    }))

  it.effect("a folder that is not a pack fails with a message naming it", () =>
    Effect.gen(function*() {
      const { exit } = yield* runPrompt("--prompts", "/nonexistent/pack")
      assert.isTrue(exit._tag === "Failure")
      if (exit._tag === "Failure") assert.include(String(exit.cause), "/nonexistent/pack: prompt pack folder not found")
    }))
})
