// Scripts for the public scripted fakes: the agent's replies in order, and a summarizer that answers
// every tool round from the rendered test prompt (see Prompts.ts), so tests read like trajectories.
import type { LlmReply } from "../../../src/layers/testing/ScriptedLlm.js"
import type { ChatRequest } from "../../../src/services/LLMProvider.js"
import { promptName, promptVar } from "./Prompts.js"

/** One agent reply in the protocol. */
export const call = (tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ reflect: { seen: "so far" }, plan: { next: tool }, action: { tool, args }, ...extra })

export const submit = (answer: string): string =>
  call("submit_answer", { answer, evidence: ["the tomato frame"], reasoning: "counted them" })

const lastUser = (request: ChatRequest): string => request.messages[request.messages.length - 1]!.content

/** The default summarizer: deterministic text naming the round and the node. */
export const toolModel = (request: ChatRequest): LlmReply => {
  const prompt = lastUser(request)
  const name = promptName(prompt)
  const node = promptVar(prompt, "node_id") ?? "?"
  switch (name) {
    case "view_node_extract":
    case "search_similar_extract":
      return `facts of ${node}`
    case "view_node_verify":
    case "search_similar_verify":
      return `details=checked ${node}; confidence=0.9`
    case "view_node_children_extract":
    case "view_node_children_verify": {
      const first = promptVar(prompt, "children")?.split(" | ")[0] ?? "?"
      return `★★ ${first} — holds the answer\n★ not_a_child — invented\ndetails=ok; confidence=0.8`
    }
    default:
      return `unexpected prompt ${name}`
  }
}

/**
 * One script for both roles: agent requests take `agent` in order, tool requests go to `tool`.
 * Running past the agent script is a test bug, reported as such.
 */
export const scriptFor = (
  agent: ReadonlyArray<LlmReply>,
  tool: (request: ChatRequest) => LlmReply = toolModel
) => {
  let next = 0
  return (request: ChatRequest): LlmReply => {
    if (request.role !== "agent") return tool(request)
    if (next >= agent.length) throw new Error(`agent script has ${agent.length} replies; asked for reply ${next + 1}`)
    return agent[next++]!
  }
}
