import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { callCost, costOfCalls, decodePricesFile, formatUsd, parsePriceText } from "../../../src/domain/Cost.js"

describe("prices", () => {
  it("reads input,cached,output or input,output from a variable", () => {
    assert.deepStrictEqual(
      parsePriceText("0.60, 0.15,2.40"),
      Either.right({ input: 0.6, cachedInput: 0.15, output: 2.4 })
    )
    assert.deepStrictEqual(parsePriceText("1,2"), Either.right({ input: 1, output: 2 }))
    for (const bad of ["", "1", "1,2,3,4", "a,b,c", "-1,0,0", "1,,2"]) {
      const parsed = parsePriceText(bad)
      assert.isTrue(Either.isLeft(parsed), bad)
      if (Either.isLeft(parsed)) assert.include(parsed.left, "expected input,cached,output")
    }
  })

  it("decodes a prices file, naming the file, the field and the fix on a bad one", () => {
    assert.deepStrictEqual(
      decodePricesFile(
        "p.json",
        `{"agent": {"input": 0.6, "cachedInput": 0.15, "output": 2.4}, "tool": {"input": 0.1, "output": 0.2}}`
      ),
      Either.right({ agent: { input: 0.6, cachedInput: 0.15, output: 2.4 }, tool: { input: 0.1, output: 0.2 } })
    )
    const negative = decodePricesFile("p.json", `{"agent": {"input": -1, "output": 2}}`)
    assert.isTrue(Either.isLeft(negative))
    if (Either.isLeft(negative)) {
      assert.match(negative.left, /^p\.json: agent\.input: .* — give each role as \{"input": USD/)
    }
    const unknownRole = decodePricesFile("p.json", `{"agnet": {"input": 1, "output": 2}}`)
    assert.isTrue(Either.isLeft(unknownRole) && unknownRole.left.startsWith("p.json: agnet"))
    const notJson = decodePricesFile("p.json", `{agent: 1}`)
    assert.isTrue(Either.isLeft(notJson) && notJson.left.startsWith("p.json: not JSON"))
  })
})

describe("cost", () => {
  it("charges uncached prompt, cached prompt and completion tokens at their prices", () => {
    const price = { input: 2, cachedInput: 0.5, output: 8 }
    assert.closeTo(
      callCost({ role: "agent", promptTokens: 1_000, completionTokens: 500, cachedPromptTokens: 400 }, price),
      (600 * 2 + 400 * 0.5 + 500 * 8) / 1e6,
      1e-15
    )
    // No cached count, or no cached price: every prompt token at the input price.
    assert.closeTo(callCost({ role: "agent", promptTokens: 1_000, completionTokens: 0 }, price), 0.002, 1e-15)
    assert.closeTo(
      callCost({ role: "agent", promptTokens: 1_000, completionTokens: 0, cachedPromptTokens: 1_000 }, {
        input: 2,
        output: 8
      }),
      0.002,
      1e-15
    )
  })

  it("is unknown, not 0, when a role that used tokens has no price; token-free calls cost nothing", () => {
    const calls = [
      { role: "agent", promptTokens: 10, completionTokens: 1 },
      { role: "ocr", promptTokens: 0, completionTokens: 0 }
    ]
    assert.isNull(costOfCalls(calls, {}))
    assert.closeTo(costOfCalls(calls, { agent: { input: 1e6, output: 1e6 } })!, 11, 1e-9)
    assert.deepStrictEqual([formatUsd(null), formatUsd(1234.5)], ["unknown", "$1,234.5000"])
  })
})
