// The agent over the real pieces it meets in a run: the sample tree through the tree loader (BM25),
// the sample questions, and the packaged en pack; only the models are scripted.
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import { runQuestion } from "../../../src/programs/agent/RunQuestion.js"
import { loadPromptManager, packagedPromptsDir } from "../../../src/programs/prompts/PromptPack.js"
import { loadQuestions } from "../../../src/programs/questions/QuestionLoader.js"
import { makeSummaryCache } from "../../../src/programs/tools/SummaryCache.js"
import { loadTreeEnvironment } from "../../../src/programs/tree/TreeLoader.js"
import { call, scriptFor, submit } from "../../support/agent/Fakes.js"

const samples = join(import.meta.dirname, "../../../samples")

describe("a question over the sample tree", () => {
  it.effect("navigates, searches, looks at frames and submits", () =>
    Effect.gen(function*() {
      const tree = yield* loadTreeEnvironment(join(samples, "trees/vtSmpl0001a"))
      const prompts = yield* loadPromptManager(packagedPromptsDir("en"))
      const questions = yield* loadQuestions(join(samples, "questions.jsonl"))
      const question = questions.find((q) => q.questionId === "001-1")!
      const event = tree.index.nodes.get(tree.index.rootIds[0]!)!.childrenIds[0]!
      const llm = yield* ScriptedLlm.make(scriptFor([
        call("view_node", { node_id: tree.index.rootIds[0]! }),
        call("search_similar", { query: "eggs skillet", question: question.question }),
        call("observe_frame", { node_ids: [event] }),
        submit("The best answer is C.")
      ], () => "details=draft confirmed: eggs in the skillet; confidence=0.8"))
      const vlm = yield* ScriptedVlm.make(() => "four eggs in a skillet")
      const prediction = yield* runQuestion(question, tree, { prompts, summaryCache: makeSummaryCache() }).pipe(
        Effect.provide(Layer.merge(llm.layer, vlm.layer))
      )
      assert.strictEqual(prediction.stopReason, "finished")
      assert.strictEqual(prediction.prediction, question.answer)
      assert.match(prediction.steps[0]!.output, new RegExp(`^\\[Node\\] ${tree.index.rootIds[0]} \\| Scene \\| `))
      assert.match(
        prediction.steps[1]!.output,
        /^\[Search results\] query "eggs skillet" → [1-5] nodes\n1\. vtSmpl0001a_L1_/
      )
      assert.include(prediction.steps[2]!.output, "[Visual observation] four eggs in a skillet")
      const [look] = yield* vlm.requests
      assert.isAbove(look!.images.length, 0)
      assert.isTrue(look!.images.every((path) => existsSync(path)), "frame files exist")
    }).pipe(Effect.provide(NodeContext.layer)))
})
