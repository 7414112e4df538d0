import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { parseAgentReply, parseJson } from "../../../src/programs/agent/Parse.js"
import { mutate, mutations } from "../../support/agent/Mutations.js"

const parsed = (raw: string) => {
  const result = parseAgentReply(raw)
  if (result._tag !== "Parsed") throw new Error(`expected a parse of ${JSON.stringify(raw)}: ${result.reason}`)
  return result.reply
}

describe("parseAgentReply", () => {
  it("reads a plain reply", () => {
    const reply = parsed(
      JSON.stringify({ reflect: { a: 1 }, plan: { b: 2 }, action: { tool: "view_node", args: { node_id: "x" } } })
    )
    assert.deepStrictEqual(reply, {
      reflect: { a: 1 },
      plan: { b: 2 },
      action: { tool: "view_node", args: { node_id: "x" } }
    })
  })

  it("strips ```json and bare ``` fences, and prose around them", () => {
    const body = JSON.stringify({ action: { tool: "submit_answer", args: { answer: "C" } } })
    for (
      const raw of [
        `\`\`\`json\n${body}\n\`\`\``,
        `\`\`\`\n${body}\n\`\`\``,
        `Here you go:\n\`\`\`json\n${body}\n\`\`\`\nDone.`,
        `Sure. ${body}`
      ]
    ) {
      assert.deepStrictEqual(parsed(raw).action, { tool: "submit_answer", args: { answer: "C" } }, raw)
    }
  })

  it("is not fooled by a fence inside a string of a fenced reply", () => {
    const body = JSON.stringify({
      action: { tool: "submit_answer", args: { answer: "C", reasoning: "see ```code``` here" } }
    })
    assert.deepStrictEqual(parsed(`\`\`\`json\n${body}\n\`\`\``).action.args, {
      answer: "C",
      reasoning: "see ```code``` here"
    })
  })

  it("collects flat action keys into args", () => {
    const reply = parsed("{\"action\": {\"tool\": \"observe_frame\", \"node_ids\": [\"a\"], \"question\": \"q\"}}")
    assert.deepStrictEqual(reply.action.args, { node_ids: ["a"], question: "q" })
    assert.deepStrictEqual(reply.reflect, {})
    assert.deepStrictEqual(reply.plan, {})
  })

  it("repairs the usual model slips: single quotes, trailing commas, unquoted keys, a missing brace", () => {
    assert.deepStrictEqual(parsed("{'action': {'tool': 'view_node', 'args': {'node_id': 'x',},},}").action.args, {
      node_id: "x"
    })
    assert.deepStrictEqual(parsed("{action: {tool: \"view_node\", args: {node_id: \"x\"}}").action.tool, "view_node")
  })

  it("keeps a \"__proto__\" key as data", () => {
    const reply = parsed("{\"action\": {\"tool\": \"t\", \"__proto__\": {\"polluted\": true}}}")
    assert.isTrue(Object.prototype.hasOwnProperty.call(reply.action.args, "__proto__"))
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("rejects replies without action.tool, with a reason", () => {
    for (
      const raw of [
        "",
        "just text",
        "[1, 2]",
        "{}",
        "{\"action\": {}}",
        "{\"action\": {\"tool\": 3}}",
        "{\"action\": {\"tool\": \"  \"}}",
        "{\"action\": \"view_node\"}",
        "{\"action\": {\"tool\": \"t\", \"args\": [1]}}"
      ]
    ) {
      const result = parseAgentReply(raw)
      assert.strictEqual(result._tag, "Unparseable", raw)
      if (result._tag === "Unparseable") assert.isNotEmpty(result.reason)
    }
  })

  it("never throws, and every accepted reply has a non-empty string tool and object args (random text)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.json()), (raw) => {
        const result = parseAgentReply(raw)
        if (result._tag === "Parsed") {
          assert.isString(result.reply.action.tool)
          assert.notStrictEqual(result.reply.action.tool, "")
          assert.isObject(result.reply.action.args)
        }
      }),
      { numRuns: 1000 }
    )
  })

  const validReply = fc.record({
    reflect: fc.dictionary(fc.string(), fc.jsonValue()),
    plan: fc.dictionary(fc.string(), fc.jsonValue()),
    action: fc.record({
      tool: fc.stringMatching(/^[a-z_]{1,20}$/),
      args: fc.dictionary(fc.string().filter((key) => key !== "__proto__"), fc.jsonValue())
    })
  })

  it("reads back any valid reply, fenced or not", () => {
    fc.assert(
      fc.property(validReply, fc.constantFrom("", "```json\n", "```\n", "Answer:\n"), (reply, prefix) => {
        const raw = `${prefix}${JSON.stringify(reply, null, 1)}${prefix.startsWith("```") ? "\n```" : ""}`
        const result = parsed(raw)
        assert.strictEqual(result.action.tool, reply.action.tool)
        assert.deepStrictEqual(result.action.args, JSON.parse(JSON.stringify(reply.action.args)))
      }),
      { numRuns: 500 }
    )
  })

  it("never throws on mutated valid replies (cuts, insertions, deletions)", () => {
    fc.assert(
      fc.property(
        validReply,
        mutations(["{", "}", "\"", ",", "```", "\\", "[", ":", "\u0000", "} {"], 5),
        (reply, changes) => {
          const raw = mutate(JSON.stringify(reply), changes)
          const result = parseAgentReply(raw)
          if (result._tag === "Parsed") {
            assert.isString(result.reply.action.tool)
            assert.notStrictEqual(result.reply.action.tool.trim(), "")
          }
        }
      ),
      { numRuns: 1000 }
    )
  })
})

describe("parseJson", () => {
  it("reads the first object of a reply past think blocks, fences and prose, repairing it if need be", () => {
    assert.deepStrictEqual(parseJson("<think>a {draft}</think>\nHere:\n```json\n{\"a\": 1}\n```"), { a: 1 })
    assert.deepStrictEqual(parseJson("{'a': [1, 2,],}"), { a: [1, 2] })
    assert.deepStrictEqual(parseJson("{\"a\": {\"b\": \"cut"), { a: { b: "cut" } })
    assert.throws(() => parseJson("no object here"), "no JSON object found")
  })
})
