import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { cpSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { SearchSettings, type SearchSettingsShape } from "../../../src/config/SearchSettings.js"
import { makeSearchTools } from "../../../src/programs/mcp/SearchTools.js"
import { makeVideoLibrary } from "../../../src/programs/mcp/VideoLibrary.js"
import { makeVideoResources } from "../../../src/programs/mcp/VideoResources.js"
import { makeVideoTools } from "../../../src/programs/mcp/VideoTools.js"
import { LLMProvider } from "../../../src/services/LLMProvider.js"
import { Thumbnailer } from "../../../src/services/Thumbnailer.js"
import { testPrompts } from "../../support/agent/Prompts.js"
import { askTools, noVlm } from "../../support/mcp/AskAgent.js"
import { type Era, type EraClient, eras, sdkClient } from "../../support/mcp/SdkClient.js"
import { hubLayer } from "../../support/search/hub.js"
import { scopedTempDir } from "../../support/TempDir.js"

// What MCP hosts (the official inspector, desktop clients) read: every input property typed inline, with
// a title or description a person wrote; only the tools that can answer; resources as capped as results.

const samples = fileURLToPath(new URL("../../../samples/trees", import.meta.url))
const video = "vtSmpl0001a"

const off = SearchSettings.make()
const github = { ...off.github, enabled: true }
const allOn = SearchSettings.make({
  enabled: true,
  searxng: { enabled: true, baseUrl: "http://127.0.0.1:9" },
  github,
  reader: { enabled: true }
})

// Listing and reading resources call no model and scale no frame.
const noModels = Layer.mergeAll(
  noVlm,
  Layer.succeed(LLMProvider, LLMProvider.of({ chat: () => Effect.dieMessage("no model in this test") })),
  Layer.succeed(Thumbnailer, Thumbnailer.of({ thumbnail: () => Effect.dieMessage("no frame scaled here") }))
)

const serveAll = (era: Era, settings: SearchSettingsShape, trees = samples) =>
  Effect.gen(function*() {
    const library = yield* makeVideoLibrary(trees)
    const videoTools = makeVideoTools({ library, prompts: testPrompts(), summarize: false })
    const ask = yield* askTools(true)
    const search = yield* makeSearchTools
    return yield* sdkClient({
      name: "vtree",
      version: "0",
      tools: [...videoTools, ...ask, ...search],
      resources: makeVideoResources(library)
    }, era)
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, noModels, hubLayer(settings))))

const listed = (client: EraClient) => Effect.promise(() => client.listTools()).pipe(Effect.map(({ tools }) => tools))

/** Effect's default refinement titles and descriptions: `minLength(1)`, `between(1, 20)`, `an integer`. */
const generated = /^[a-z][A-Za-z]*(\(.*\))?$|^an? .*\(s\)|^an? (integer|string|number)/

/** Every problem a host would trip on, as `tool: path: what`. */
const problems = (tool: string, schema: unknown, path: string): Array<string> => {
  if (typeof schema !== "object" || schema === null) return []
  const node = schema as Record<string, unknown>
  const found: Array<string> = []
  if ("$ref" in node) found.push(`${tool}: ${path}: $ref ${String(node["$ref"])}`)
  if ("$defs" in node) found.push(`${tool}: ${path}: $defs`)
  const properties = (node["properties"] ?? {}) as Record<string, Record<string, unknown>>
  for (const [name, property] of Object.entries(properties)) {
    const at = path === "" ? name : `${path}.${name}`
    if (typeof property["type"] !== "string") found.push(`${tool}: ${at}: no inline type`)
    for (const key of ["title", "description"] as const) {
      const text = property[key]
      if (typeof text === "string" && generated.test(text)) found.push(`${tool}: ${at}: ${key} ${text}`)
    }
    if (typeof property["title"] !== "string" && typeof property["description"] !== "string") {
      found.push(`${tool}: ${at}: neither title nor description`)
    }
  }
  const nested: Array<Array<string>> = []
  for (const [key, inner] of Object.entries(node)) {
    if (key === "properties") {
      for (const [name, property] of Object.entries(inner as object)) {
        nested.push(problems(tool, property, path === "" ? name : `${path}.${name}`))
      }
    } else if (typeof inner === "object" && inner !== null) {
      nested.push(problems(tool, inner, path))
    }
  }
  return found.concat(...nested)
}

describe.each(eras)("MCP as hosts read it (%s client)", (era) => {
  it.scoped("every tool input property has an inline type and a human title or description; no $ref", () =>
    Effect.gen(function*() {
      const tools = yield* listed(yield* serveAll(era, allOn))
      assert.includeMembers(tools.map((tool) => tool.name), ["video_search", "video_ask", "external_search"])
      assert.deepStrictEqual(tools.flatMap((tool) => problems(tool.name, tool.inputSchema, "")), [])
      const k = (tools.find((tool) => tool.name === "video_search")!.inputSchema.properties as any).k
      assert.strictEqual(k.type, "integer")
      assert.strictEqual(k.minimum, 1)
      assert.strictEqual(k.maximum, 20)
    }))

  it.scoped("tools of a disabled capability are not listed; each appears when its capability is on", () =>
    Effect.gen(function*() {
      const names = (settings: SearchSettingsShape) =>
        serveAll(era, settings).pipe(
          Effect.flatMap(listed),
          Effect.map((tools) => tools.map((tool) => tool.name).filter((name) => name.startsWith("external_")))
        )
      assert.deepStrictEqual(yield* names(off), [])
      assert.deepStrictEqual(yield* names(SearchSettings.make({ enabled: false, reader: { enabled: true } })), [])
      assert.deepStrictEqual(yield* names(SearchSettings.make({ enabled: true, reader: { enabled: true } })), [
        "external_read"
      ])
      assert.deepStrictEqual(yield* names(SearchSettings.make({ enabled: true, github })), [
        "external_search"
      ])
      assert.deepStrictEqual(yield* names(allOn), ["external_search", "external_read"])
    }))

  it.scoped("a tree resource is capped like a tool result, and says what was cut", () =>
    Effect.gen(function*() {
      const trees = yield* scopedTempDir("mcp-big-tree")
      cpSync(join(samples, video), join(trees, video), { recursive: true })
      const file = join(trees, video, "tree.json")
      const tree = JSON.parse(readFileSync(file, "utf8"))
      const first = Object.keys(tree.nodes)[0]!
      tree.nodes[first].subtitle = "la ".repeat(72_000)
      writeFileSync(file, JSON.stringify(tree))
      const whole = readFileSync(file, "utf8").length
      assert.isAbove(whole, 216_000)
      const client = yield* serveAll(era, off, trees)
      const read = yield* Effect.promise(() => client.readResource({ uri: `vtree://tree/${video}` }))
      const texts = read.contents.map((item) => (item as { text: string }).text)
      assert.isAtMost(texts.join("").length, 80_000 + 400)
      assert.strictEqual(texts[0]!.length, 80_000)
      assert.strictEqual(texts[0], readFileSync(file, "utf8").slice(0, 80_000))
      const note = texts.at(-1)!
      assert.include(note, `${whole - 80_000} of ${whole} characters not shown`)
      assert.include(note, "video_overview")
      assert.strictEqual(read.contents.at(-1)!.mimeType, "text/plain")

      // A tree within the cap is served whole, as one JSON text.
      const sample = yield* serveAll(era, off)
      const small = yield* Effect.promise(() => sample.readResource({ uri: `vtree://tree/${video}` }))
      assert.strictEqual(small.contents.length, 1)
      assert.strictEqual(JSON.parse((small.contents[0] as { text: string }).text).videoID, video)
    }))
})
