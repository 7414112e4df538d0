import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { promptCommand } from "../../../src/cli/PromptCommand.js"

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
      assert.strictEqual(stderr, "")
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

  it.effect("an unknown task type is refused with the valid list, nothing printed", () =>
    Effect.gen(function*() {
      const { exit, stdout } = yield* runPrompt("--task-type", "Juggling")
      assert.isTrue(exit._tag === "Failure")
      if (exit._tag === "Failure") {
        assert.match(
          String(exit.cause),
          /--task-type "Juggling": not a task type of Video-MME or of \S+ — use one of: Temporal Perception, .*Counting Problem/
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
