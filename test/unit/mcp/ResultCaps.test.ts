import { assert, describe, it } from "@effect/vitest"
import type { McpContent } from "../../../src/programs/mcp/McpTool.js"
import { capReply, capResourceText, capText, resultLimits } from "../../../src/programs/mcp/ResultCaps.js"

const image = (bytes: number): McpContent => ({ type: "image", data: "A".repeat(bytes), mimeType: "image/jpeg" })
const texts = (content: ReadonlyArray<McpContent>) =>
  content.filter((item) => item.type === "text").map((item) => (item as { text: string }).text)

describe("result caps", () => {
  it("leaves a result within every limit as it is", () => {
    const reply = { content: [{ type: "text" as const, text: "hello" }, image(100)], isError: false }
    assert.deepStrictEqual(capReply(reply), reply)
  })

  it("cuts text past about 20k tokens and says how much was cut", () => {
    const capped = capReply({ content: [{ type: "text", text: "x".repeat(100_000) }], isError: false })
    const [kept, note] = texts(capped.content)
    assert.strictEqual(kept!.length, resultLimits.maxTextChars)
    assert.include(note, "20000 of 100000 characters not shown")
  })

  it("cuts a resource's text like a result's and notes the cut with what to read instead", () => {
    assert.deepStrictEqual(capResourceText("{}", "use video_overview"), { text: "{}" })
    const capped = capResourceText("y".repeat(90_000), "use video_overview")
    assert.strictEqual(capped.text.length, resultLimits.maxTextChars)
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
