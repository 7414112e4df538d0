// A scripted agent for openai-sim: it reads each request the way a model would (which question, how
// many steps so far) and answers in the agent protocol, so the built CLI can run whole benchmarks
// against a real HTTP endpoint with predictable outcomes.
import { readFileSync } from "node:fs"
import type { ChatReply, Fault, SimOptions, SimRequest } from "../openai-sim/index.js"

export const agentModel = "agent-model"
export const toolModel = "tool-model"
export const vlmModel = "vlm-model"

export interface SampleQuestion {
  readonly questionId: string
  readonly question: string
  readonly answer: string
  readonly videoId: string
  readonly taskType: string
}

/** The Video-MME rows of samples/questions.jsonl. */
export const sampleQuestions = (
  file = new URL("../../../samples/questions.jsonl", import.meta.url)
): ReadonlyArray<SampleQuestion> =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const row = JSON.parse(line) as Record<string, string>
      return {
        questionId: row["question_id"]!,
        question: row["question"]!,
        answer: row["answer"]!,
        videoId: row["videoID"]!,
        taskType: row["task_type"]!
      }
    })

export interface PolicyOptions {
  readonly questions: ReadonlyArray<SampleQuestion>
  /** Question ids the agent answers with a wrong letter. */
  readonly wrong?: ReadonlySet<string>
  /** View this many nodes before submitting (default 1). */
  readonly viewSteps?: number
  /** A page the agent reads with external_read (`--web-search`) as its first step, by question; none: no read. */
  readonly readPage?: (questionId: string) => string | undefined
  readonly agentDelayMs?: number
  readonly toolDelayMs?: number
  /** Agent calls after the first n never answer: the run then has calls open that only cancelling ends. */
  readonly stallAgentAfter?: number
  /** Share of all replies that fail (half 500, half 429) and that never answer; seeded, so reproducible. */
  readonly faults?: { readonly failRate: number; readonly stallRate: number; readonly seed?: number }
  /** `tools`: every step is a native function call, the notes are the message text (default `json`). */
  readonly protocol?: "json" | "tools"
  /** JSON protocol: the shape each reply is written in, by question and 0-based step (default clean). */
  readonly replyStyle?: (questionId: string, step: number) => ReplyStyle
}

interface AgentStep {
  readonly reflect: Record<string, unknown>
  readonly plan: Record<string, unknown>
  readonly action: { readonly tool: string; readonly args: Record<string, unknown> }
}

/**
 * The ways open models really write a JSON-protocol reply (test/fixtures/replies has one of each), with
 * the shapes the parser must record for it. `<think>` blocks are not among them: the OpenAI layer already
 * moves a closed leading one into the reasoning, so the parser never sees it.
 */
export const replyStyles = {
  clean: { shapes: ["clean"], write: (step: AgentStep) => JSON.stringify(step) },
  fenced: { shapes: ["fenced"], write: (step: AgentStep) => "```json\n" + JSON.stringify(step, null, 2) + "\n```" },
  // Claude-style tags and an unclosed <think> (a template that opens the block for the model).
  thinking: {
    shapes: ["think-stripped"],
    write: (step: AgentStep) =>
      `<thinking>\nThe next call is ${step.action.tool} {draft}.\n</thinking>\n${JSON.stringify(step)}`
  },
  "unclosed-think": {
    shapes: ["think-stripped"],
    write: (step: AgentStep) =>
      `<think>\nI should call ${step.action.tool}; a draft: {"tool": "nothing"}\n${JSON.stringify(step)}`
  },
  // OpenAI-style function call in the text, and Hermes / Qwen <tool_call> tags.
  "function-call": {
    shapes: ["function-call"],
    write: (step: AgentStep) => JSON.stringify({ name: step.action.tool, arguments: step.action.args })
  },
  "tool-call-tag": {
    shapes: ["function-call"],
    write: (step: AgentStep) =>
      `I will call ${step.action.tool}.\n<tool_call>\n${
        JSON.stringify({ name: step.action.tool, arguments: step.action.args })
      }\n</tool_call>`
  },
  // The model plans two steps; the first is the one taken.
  several: {
    shapes: ["first-of-several"],
    write: (step: AgentStep) =>
      `${JSON.stringify(step)}\n${
        JSON.stringify({ ...step, action: { tool: "search_similar", args: { query: "the next thing" } } })
      }`
  },
  // Cut off by the token limit after the action was complete.
  "cut-off": {
    shapes: ["repaired"],
    write: (step: AgentStep) =>
      `{"reflect": ${JSON.stringify(step.reflect)}, "action": ${
        JSON.stringify(step.action)
      }, "plan": {"next": "after this I will look at the fr`
  }
} as const satisfies Record<
  string,
  { readonly shapes: ReadonlyArray<string>; readonly write: (step: AgentStep) => string }
>
export type ReplyStyle = keyof typeof replyStyles

interface Message {
  readonly role: string
  readonly content: unknown
}

// The note the loop sends when a question's steps are spent (json protocol): such a request is answered.
const finalAnswerNote = (JSON.parse(
  readFileSync(new URL("../../../prompts/en/labels.json", import.meta.url), "utf8")
) as Record<string, string>)["finalAnswerMessage"]!

/** A final-answer call: submit_answer the only function offered, or the pack's note in the last message. */
const isFinalAnswerCall = (request: SimRequest, messages: ReadonlyArray<Message>): boolean => {
  const tools = request.body["tools"]
  if (Array.isArray(tools)) {
    return tools.length === 1 && (tools[0] as { function?: { name?: string } }).function?.name === "submit_answer"
  }
  return text(messages.at(-1)).endsWith(finalAnswerNote)
}

const messagesOf = (request: SimRequest): ReadonlyArray<Message> =>
  Array.isArray(request.body["messages"]) ? (request.body["messages"] as ReadonlyArray<Message>) : []

const text = (message: Message | undefined): string => (typeof message?.content === "string" ? message.content : "")

// mulberry32: the same seed gives the same fault pattern on every run.
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Wrong letter for an answer: the next option, wrapping within A–D. */
export const wrongLetter = (answer: string): string => "ABCD"[("ABCD".indexOf(answer) + 1) % 4]!

/** The chat scripts for openai-sim: agent, tool and vision models. */
export const policyScripts = (options: PolicyOptions): NonNullable<SimOptions["chat"]> => {
  const byText = new Map(options.questions.map((q) => [q.question, q]))
  const random = seeded(options.faults?.seed ?? 7)
  const fault = (): Fault | undefined => {
    if (options.faults === undefined) return undefined
    const roll = random()
    if (roll < options.faults.stallRate) return { fault: "stall" }
    if (roll < options.faults.stallRate + options.faults.failRate) {
      return roll < options.faults.stallRate + options.faults.failRate / 2
        ? { fault: "status", status: 500 }
        : { fault: "status", status: 429 }
    }
    return undefined
  }
  const viewSteps = options.viewSteps ?? 1

  const agent = (request: SimRequest, index: number): ChatReply | Fault => {
    if (options.stallAgentAfter !== undefined && index >= options.stallAgentAfter) return { fault: "stall" }
    const injected = fault()
    if (injected !== undefined) return injected
    const messages = messagesOf(request)
    const user = text(messages.find((m) => m.role === "user"))
    const questionText = /^Question: (.*)$/m.exec(user)?.[1]?.trim() ?? ""
    const question = byText.get(questionText)
    const delay = options.agentDelayMs === undefined ? {} : { delayMs: options.agentDelayMs }
    if (question === undefined) return { content: `no question found in: ${user.slice(0, 80)}`, ...delay }
    const steps = messages.filter((m) => m.role === "assistant").length
    const roots = [...user.matchAll(/\b[A-Za-z0-9]+_L1_\d{3}\b/g)].map((match) => match[0])
    // Written as the protocol and the style ask; the default is the plain JSON reply.
    const respond = (step: AgentStep, reasoning: string): ChatReply => {
      if (options.protocol === "tools") {
        return {
          content: JSON.stringify({ reflect: step.reflect, plan: step.plan }),
          toolCalls: [{ name: step.action.tool, arguments: step.action.args }],
          reasoning,
          ...delay
        }
      }
      const style = options.replyStyle?.(question.questionId, steps) ?? "clean"
      return { content: replyStyles[style].write(step), reasoning, ...delay }
    }
    const page = steps === 0 ? options.readPage?.(question.questionId) : undefined
    if (page !== undefined) {
      return respond(
        { reflect: {}, plan: { next: "external_read" }, action: { tool: "external_read", args: { url: page } } },
        "step 1: read the page about it"
      )
    }
    // A question that began with a read views the nodes after it (its first reply names the tool).
    const viewed = text(messages.find((m) => m.role === "assistant")).includes("external_read") ? steps - 1 : steps
    // Told that its steps are spent, it answers with what it has, as a model following the prompt would.
    if (viewed < viewSteps && !isFinalAnswerCall(request, messages)) {
      const args = { node_id: roots[viewed % Math.max(1, roots.length)] ?? "missing", question: questionText }
      return respond(
        {
          reflect: { progress: "calling view_node" },
          plan: { next: "view_node" },
          action: { tool: "view_node", args }
        },
        `step ${steps + 1}: look at a scene first`
      )
    }
    const letter = options.wrong?.has(question.questionId) === true ? wrongLetter(question.answer) : question.answer
    return respond({
      reflect: { seen: "the scene" },
      plan: { next: "answer" },
      action: { tool: "submit_answer", args: { answer: letter, evidence: "the scene summary", reasoning: "read it" } }
    }, "enough evidence")
  }

  const summarizer = (): ChatReply | Fault => {
    const injected = fault()
    if (injected !== undefined) return injected
    return {
      content:
        "The host works at the stove; four eggs sit in a black skillet.\ndetails=seen in the card; confidence=0.9",
      ...(options.toolDelayMs === undefined ? {} : { delayMs: options.toolDelayMs })
    }
  }

  return { [agentModel]: agent, [toolModel]: summarizer, [vlmModel]: summarizer }
}
