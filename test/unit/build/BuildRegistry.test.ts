import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { ProviderError } from "../../../src/domain/ProviderError.js"
import * as ScriptedLlm from "../../../src/layers/testing/ScriptedLlm.js"
import * as ScriptedVlm from "../../../src/layers/testing/ScriptedVlm.js"
import type { BuildOptions } from "../../../src/programs/builder/BuildOptions.js"
import { buildTree } from "../../../src/programs/builder/BuildTree.js"
import { listVideos, probeVideos } from "../../../src/programs/builder/Inputs.js"
import { overviewPage } from "../../../src/programs/mcp/OverviewPage.js"
import { loadTreeEnvironment, readTreeIndex } from "../../../src/programs/tree/TreeLoader.js"
import { renderTreePage } from "../../../src/programs/tree/TreePage.js"
import { showNode } from "../../../src/programs/tree/TreeReports.js"
import type { ChatRequest } from "../../../src/services/LLMProvider.js"
import type { VisionRequest } from "../../../src/services/VLMProvider.js"
import { llmCards, makeFakeMedia } from "../../support/build/BuildFakes.js"
import { eventReply } from "../../support/openai-sim/builder.js"
import { scopedTempDir } from "../../support/TempDir.js"

const prompts = {
  event: "EVENT PROMPT \"frames\": [ \"event_description\"",
  scene: "SCENE PROMPT",
  registry: "REGISTRY PROMPT"
}
const models = { vlm: "scripted-vlm", llm: "scripted-llm" }
// Two hours at a coarse grid: 23 events of about 300 s, scenes of 20 minutes, two registry parts (one an hour).
// Fixed windows: the counts below follow the grid (scene cuts are tested in SceneCuts.test.ts).
const parameters = {
  frameInterval: 60,
  eventSeconds: 300,
  sceneSeconds: 1200,
  framesPerCall: 12,
  scenes: "fixed"
} as const
const video = { durationSeconds: 7200 }

// Event n names Tom by one of two wordings, Tim, or a red car, in turn.
const namedIn = (event: number): ReadonlyArray<string> =>
  [["Chef Tom"], ["the man in the red apron", "a red car"], ["Tim"]][event % 3]!

const vlmScript = (request: VisionRequest): string => {
  const event = Number(/^Event (\d+) of/m.exec(request.text)?.[1] ?? "1") - 1
  const reply = JSON.parse(eventReply(request.text)) as { event: Record<string, unknown> }
  return JSON.stringify({ ...reply, event: { ...reply.event, entities: namedIn(event) } })
}

/** The node ids each entity wording is listed under in a registry call's text. */
const namesIn = (text: string): Map<string, Array<string>> => {
  const found = new Map<string, Array<string>>()
  let node = ""
  for (const line of text.split("\n")) {
    node = /^(?:Scene|Event) (\S+) \(/.exec(line)?.[1] ?? node
    const named = /^ {2}entities: (.*)$/.exec(line)?.[1]
    for (const name of named?.split("; ") ?? []) found.set(name, [...(found.get(name) ?? []), node])
  }
  return found
}

/**
 * A model reconciling the cards, messily: in a code fence with a trailing comma, Tom twice in one reply, an
 * unknown node id, an entry with none known, and Tim sharing Tom's vague alias "the man". The second hour
 * calls Tom by his other name.
 */
const registryReply = (text: string): string => {
  const names = namesIn(text)
  const ids = (...wordings: ReadonlyArray<string>) => wordings.flatMap((name) => names.get(name) ?? [])
  const second = text.startsWith("Part 2 of 2")
  const entries = [
    {
      name: second ? "Chef Tom" : "Tom",
      aliases: [second ? "Tom" : "Chef Tom", "Thomas", "the man"],
      description: "The cook.",
      nodes: [...ids("Chef Tom"), "clip_L1_009_L2_099"]
    },
    { name: "tom", aliases: ["the man in the red apron"], nodes: ids("the man in the red apron") },
    { name: "Tim", aliases: ["the man"], description: "A guest.", nodes: ids("Tim") },
    { name: "a red car", nodes: ids("a red car") },
    { name: "A ghost", nodes: ["nowhere_L2_000"] }
  ]
  return "```json\n" + JSON.stringify({ entities: entries }, null, 1).replace(/\n\]\n\}$/, ",\n]\n}") + "\n```"
}

const llmScript = (failRegistry: boolean) => (request: ChatRequest) => {
  const user = request.messages.at(-1)?.content ?? ""
  if (request.messages[0]?.content !== prompts.registry) return llmCards(request)
  return failRegistry && user.startsWith("Part 2 of 2")
    ? new ProviderError({ provider: "llm", reason: "Server", message: "HTTP 503: the endpoint went away" })
    : registryReply(user)
}

const run = (dir: string, out: string, failRegistry = false) =>
  Effect.gen(function*() {
    const media = yield* makeFakeMedia({ "clip.mp4": video })
    const vlm = yield* ScriptedVlm.make(vlmScript)
    const llm = yield* ScriptedLlm.make(llmScript(failRegistry))
    const options: BuildOptions = { outDir: out, prompts, models, parameters, concurrency: 1 }
    const result = yield* Effect.either(
      Effect.flatMap(probeVideos(yield* listVideos([`${dir}/clip.mp4`])), (inputs) => buildTree(inputs, options))
    ).pipe(Effect.provide(Layer.mergeAll(media.layer, vlm.layer, llm.layer)))
    const asked = yield* llm.requests
    return {
      result,
      vlm: (yield* vlm.requests).length,
      scenes: asked.filter((r) => r.messages[0]?.content === prompts.scene).length,
      registry: asked.filter((r) => r.messages[0]?.content === prompts.registry).length
    }
  })

const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = yield* scopedTempDir("registry")
  yield* fs.writeFileString(path.join(dir, "clip.mp4"), "video bytes")
  return { dir, out: path.join(dir, "trees"), treeDir: path.join(dir, "trees", "clip") }
})

layer(NodeContext.layer)("the entity registry a build writes", (it) => {
  it.scoped("merges one entity named in several events and hours, keeps different ones apart, drops unknown ids", () =>
    Effect.gen(function*() {
      const { dir, out, treeDir } = yield* setup
      const built = yield* run(dir, out)
      assert.isTrue(Either.isRight(built.result))
      assert.strictEqual(built.registry, 2, "one call per hour of video")
      const { index } = yield* readTreeIndex(treeDir)
      const entities = index.entities ?? []
      assert.deepStrictEqual(entities.map((e) => [e.id, e.name]), [
        ["entity_1", "Tom"],
        ["entity_2", "a red car"],
        ["entity_3", "Tim"]
      ])
      const [tom, car, tim] = entities
      assert.includeMembers([...tom!.aliases!], ["Chef Tom", "the man in the red apron", "Thomas", "the man"])
      assert.strictEqual(tom!.first_seen, 0)
      assert.strictEqual(tom!.description, "The cook.")
      // Every event that names Tom either way, in both hours, and their scenes; nothing unknown.
      const events = [...index.nodes.values()].filter((n) => n.level === 2).sort((a, b) =>
        a.timeRange[0] - b.timeRange[0]
      )
      const tomEvents = events.filter((_, i) => i % 3 !== 2).map((e) => e.id)
      assert.strictEqual(tomEvents.length, 16)
      assert.includeMembers([...tom!.nodes!], tomEvents)
      const tomScenes = new Set(tomEvents.map((id) => index.nodes.get(id)!.parentId!))
      assert.deepStrictEqual(new Set(tom!.nodes!.filter((id) => index.nodes.get(id)!.level === 1)), tomScenes)
      assert.isTrue(tom!.nodes!.every((id) => index.nodes.has(id)))
      assert.isTrue(tom!.nodes!.some((id) => index.nodes.get(id)!.timeRange[0] >= 3600), "the second hour merged in")
      assert.deepStrictEqual(
        tim!.nodes!.filter((id) => index.nodes.get(id)!.level === 2),
        events.filter((_, i) => i % 3 === 2).map((e) => e.id)
      )
      assert.strictEqual(car!.first_seen, events[1]!.timeRange[0])
      assert.notInclude(entities.map((e) => e.name), "A ghost")
    }))

  it.scoped("resumes after a failed registry call asking only that call, and a rerun asks nothing", () =>
    Effect.gen(function*() {
      const { dir, out, treeDir } = yield* setup
      const fs = yield* FileSystem.FileSystem
      const killed = yield* run(dir, out, true)
      assert.isTrue(Either.isLeft(killed.result))
      assert.isFalse(yield* fs.exists(`${treeDir}/tree.json`))
      // Every event and scene was asked and saved; the first hour's registry too, the second's failed.
      assert.strictEqual(killed.registry, 2)

      const resumed = yield* run(dir, out)
      assert.isTrue(Either.isRight(resumed.result))
      assert.deepStrictEqual([resumed.vlm, resumed.scenes, resumed.registry], [0, 0, 1])
      const summary = Either.getOrThrow(resumed.result)[0]!
      assert.strictEqual(killed.vlm, summary.events)
      assert.deepStrictEqual(summary.calls, { vlm: 0, llm: 1, reused: summary.events + summary.scenes + 1 })
      const first = yield* fs.readFileString(`${treeDir}/tree.json`)

      const again = yield* run(dir, out)
      assert.deepStrictEqual([again.vlm, again.scenes, again.registry], [0, 0, 0])
      assert.strictEqual(yield* fs.readFileString(`${treeDir}/tree.json`), first)
      const build = (JSON.parse(first) as { build: { calls: { llm: number } } }).build
      assert.strictEqual(build.calls.llm, summary.scenes + 2)
    }))

  it.scoped("search finds an entity's nodes by an alias no card uses; tree show, video_overview and the tree page list it", () =>
    Effect.gen(function*() {
      const { dir, out, treeDir } = yield* setup
      yield* run(dir, out)
      const env = yield* loadTreeEnvironment(treeDir)
      const tom = env.index.entities![0]!
      const hits = yield* env.search("Thomas", 5)
      assert.isAbove(hits.length, 0)
      assert.isTrue(hits.every((hit) => tom.nodes!.includes(hit.nodeId)))
      const event = tom.nodes!.find((id) => env.index.nodes.get(id)!.level === 2)!
      const shown = yield* showNode(treeDir, event, false)
      assert.match(shown, /\[Entities\] .*Tom \(entity_1; also: .*Thomas.*\): The cook\./)
      // A frame shows the entities its event lists.
      const frame = env.index.nodes.get(event)!.childrenIds[0]!
      assert.include(yield* showNode(treeDir, frame, false), "Tom (entity_1")
      // The MCP overview and the tree page carry the same entry.
      const overview = overviewPage("clip", env.index, undefined)!.entities[0]!
      assert.deepStrictEqual([overview.name, overview.description, overview.nodes], ["Tom", "The cook.", tom.nodes])
      assert.include(overview.aliases ?? [], "Thomas")
      const page = renderTreePage([{ index: env.index, frames: new Map() }], { title: "clip" })
      assert.match(page, /3 entities in the registry/)
      assert.include(page, `<a href="#${event}"><code class="id">${event}</code></a>`)
    }))

  it.scoped("a build without a registry prompt asks no registry call and writes no entities", () =>
    Effect.gen(function*() {
      const { dir, out, treeDir } = yield* setup
      const media = yield* makeFakeMedia({ "clip.mp4": video })
      const llm = yield* ScriptedLlm.make(llmScript(false))
      const { registry: _, ...cardsOnly } = prompts
      yield* Effect.flatMap(
        probeVideos(yield* listVideos([`${dir}/clip.mp4`])),
        (inputs) => buildTree(inputs, { outDir: out, prompts: cardsOnly, models, parameters })
      ).pipe(
        Effect.provide(Layer.mergeAll(media.layer, ScriptedVlm.layer(vlmScript), llm.layer))
      )
      assert.isTrue((yield* llm.requests).every((r) => r.messages[0]?.content === prompts.scene))
      const tree = JSON.parse(
        yield* FileSystem.FileSystem.pipe(
          Effect.flatMap((fs) => fs.readFileString(`${treeDir}/tree.json`))
        )
      ) as Record<string, unknown>
      assert.notProperty(tree, "entities")
    }))
})
