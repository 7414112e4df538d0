// #21 point 4: data must not drive the terminal. Escape sequences in a card, a subtitle, a task type, a
// file name or a --run-id reach stdout/stderr only as visible text (`\x1b`), through the console
// wrapper main.ts applies, the error reporter and the progress writer.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Cause, Console, Effect } from "effect"
import { join } from "node:path"
import { describeFailure } from "../../../src/cli/ErrorReport.js"
import { withTerminalText } from "../../../src/cli/TerminalConsole.js"
import { TreeDecodeError } from "../../../src/domain/Tree.js"
import { initialState, renderBar, renderLine } from "../../../src/programs/harness/Progress.js"
import { showNode } from "../../../src/programs/tree/TreeReports.js"
import { scopedTempDir } from "../../support/TempDir.js"
import { syntheticTree, writeTree } from "../../support/trees/SyntheticTree.js"

const title = "\x1b]0;pwned\x07"
const clear = "\x1b[2J"
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

/** What a command's Console.log / Console.error calls put on the terminal, through the wrapper. */
const captured = <E, R>(self: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const capture = (...args: ReadonlyArray<unknown>) => Effect.sync(() => void lines.push(args.map(String).join(" ")))
    yield* Console.consoleWith((console) =>
      Console.withConsole(withTerminalText(self), { ...console, log: capture, error: capture })
    )
    return lines.join("\n")
  })

layer(NodeContext.layer)("terminal output", (it) => {
  it.scoped("tree show and tree show --anchor print a card's and a subtitle's escapes visibly", () =>
    Effect.gen(function*() {
      const dir = join(yield* scopedTempDir("term"), "VID")
      const tree = syntheticTree({ videoId: "VID", scenes: 1, eventsPerScene: 2, framesPerEvent: 2 }) as {
        nodes: Record<string, Record<string, unknown>>
      }
      tree.nodes["VID_L1_000"]!["card"] = { scene_summary: `Title ${title} then ${clear} cleared` }
      tree.nodes["VID_L1_000_L2_000"]!["card"] = { event_description: `child ${clear}${"x".repeat(200)}` }
      tree.nodes["VID_L1_000"]!["subtitle"] = `First. Then ${"\x1b]0;a. b\x07"} done.`
      writeTree(dir, tree)
      for (const anchor of [false, true]) {
        const shown = yield* captured(Effect.flatMap(showNode(dir, "VID_L1_000", anchor), Console.log))
        assert.notMatch(shown, controls)
        assert.include(shown, "Title \\x1b]0;pwned\\x07 then \\x1b[2J cleared")
        assert.include(shown, "child \\x1b[2J")
      }
      // The subtitle is rendered before it is cut into sentences: no sentence starts inside the sequence.
      const sentences = (yield* showNode(dir, "VID_L1_000", true)).split("\n").filter((line) => line.startsWith("[s"))
      assert.deepStrictEqual(sentences.map((line) => controls.test(line)), sentences.map(() => false))
      assert.include(sentences.join("\n"), "\\x1b]0;a.")
    }))
})

describe("terminal output", () => {
  it.effect("the console wrapper renders every Console.log and Console.error argument", () =>
    Effect.gen(function*() {
      const out = yield* captured(
        Effect.zipRight(Console.log(`report: task ${title}`), Console.error(`domain ${clear}\nnext`))
      )
      assert.strictEqual(out, "report: task \\x1b]0;pwned\\x07\ndomain \\x1b[2J\nnext")
    }))

  it("an error line naming a videoID, node key or file name shows its escapes", () => {
    const line = describeFailure(Cause.fail(TreeDecodeError.at(`trees/${title}/tree.json`, "nodes.a", "bad")))
    assert.isDefined(line)
    assert.notMatch(line!, controls)
    assert.include(line!, "trees/\\x1b]0;pwned\\x07/tree.json")
  })

  it("the progress line and the bar show a --run-id's escapes, and the bar's cut never splits one", () => {
    const state = { ...initialState(`run${title}`, 0), total: 10 }
    assert.strictEqual(renderLine(state, 0).startsWith("vtree: run run\\x1b]0;pwned\\x07: 0/10"), true)
    for (let columns = 1; columns < 80; columns++) assert.notMatch(renderBar(state, 0, columns), controls)
  })
})
