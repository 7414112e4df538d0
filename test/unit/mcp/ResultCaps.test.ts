import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { McpContent } from "../../../src/programs/mcp/McpTool.js"
import {
  capReply,
  capResourceText,
  capText,
  capToolReply,
  maxResourceChars,
  maxResultSizeKey,
  resultLimits
} from "../../../src/programs/mcp/ResultCaps.js"

const image = (bytes: number): McpContent => ({ type: "image", data: "A".repeat(bytes), mimeType: "image/jpeg" })
const texts = (content: ReadonlyArray<McpContent>) =>
  content.filter((item) => item.type === "text").map((item) => (item as { text: string }).text)

describe("result caps", () => {
  it("leaves a result within every limit as it is", () => {
    const reply = { content: [{ type: "text" as const, text: "hello" }, image(100)], isError: false }
    assert.deepStrictEqual(capReply(reply), reply)
  })

  it("cuts text past 50,000 characters, where Claude Code would write the result to a file, and says how much was cut", () => {
    const capped = capReply({ content: [{ type: "text", text: "x".repeat(100_000) }], isError: false })
    const [kept, note] = texts(capped.content)
    assert.strictEqual(kept!.length, 50_000)
    assert.include(note, "50000 of 100000 characters not shown — the result limit is 50000 characters")
  })

  it("gives a tool that declares anthropic/maxResultSizeChars that much text, and no tool less than the default", () => {
    const tool = (meta?: Record<string, unknown>) => ({
      name: "t",
      description: "",
      annotations: {
        title: "t",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false
      },
      inputSchema: {},
      outputSchema: {},
      call: () => Effect.die("not called"),
      ...(meta === undefined ? {} : { meta })
    })
    const reply = { content: [{ type: "text" as const, text: "x".repeat(100_000) }], isError: false }
    const roomy = capToolReply(tool({ [maxResultSizeKey]: 80_000 }))(reply)
    assert.strictEqual(texts(roomy.content)[0]!.length, 80_000)
    assert.include(texts(roomy.content)[1], "20000 of 100000 characters not shown")
    const stingy = capToolReply(tool({ [maxResultSizeKey]: 10 }))(reply)
    assert.strictEqual(texts(stingy.content)[0]!.length, 50_000)
    assert.strictEqual(texts(capToolReply(tool())(reply).content)[0]!.length, 50_000)
  })

  it("keeps resource links, whatever else is cut", () => {
    const link = { type: "resource_link" as const, uri: "vtree://frame/V_1", name: "V_1", mimeType: "image/jpeg" }
    const capped = capReply({ content: [image(600_000), link, image(600_000)], isError: false })
    assert.deepStrictEqual(capped.content.filter((item) => item.type !== "text"), [image(600_000), link])
  })

  it("cuts a resource's text like a result's and notes the cut with what to read instead", () => {
    assert.deepStrictEqual(capResourceText("{}", "use video_overview"), { text: "{}" })
    const capped = capResourceText("y".repeat(90_000), "use video_overview")
    assert.strictEqual(capped.text.length, maxResourceChars)
    assert.include(capped.note, "10000 of 90000 characters not shown")
    assert.include(capped.note, "use video_overview")
  })

  it("keeps at most 16 images and notes the rest", () => {
    const capped = capReply({ content: Array.from({ length: 20 }, () => image(10)), isError: false })
    assert.strictEqual(capped.content.filter((item) => item.type === "image").length, 16)
    assert.include(texts(capped.content)[0], "4 of 20 images not shown")
  })

  it("drops images from the end while the result is over 1 MB", () => {
    const capped = capReply({ content: Array.from({ length: 8 }, () => image(200_000)), isError: false })
    const kept = capped.content.filter((item) => item.type === "image").length
    assert.strictEqual(kept, 4)
    assert.include(texts(capped.content)[0], "4 of 8 images not shown — the result limit is 1000000 bytes")
    assert.isAtMost(JSON.stringify(capped).length, resultLimits.maxBytes)
  })

  it("never cuts inside a surrogate pair", () => {
    assert.deepStrictEqual(capText("ab😀", 3), { text: "ab", cut: 2 })
  })
})
