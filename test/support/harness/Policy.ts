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
export const sampleQuestions = (file = new URL("../../../samples/questions.jsonl", import.meta.url)): ReadonlyArray<SampleQuestion> =>
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
  readonly agentDelayMs?: number
  readonly toolDelayMs?: number
  /** Agent calls after the first n never answer: the run then has calls open that only cancelling ends. */
  readonly stallAgentAfter?: number
  /** Share of all replies that fail (half 500, half 429) and that never answer; seeded, so reproducible. */
  readonly faults?: { readonly failRate: number; readonly stallRate: number; readonly seed?: number }
}

interface Message {
  readonly role: string
  readonly content: unknown
}

const messagesOf = (request: SimRequest): ReadonlyArray<Message> =>
  Array.isArray(request.body["messages"]) ? (request.body["messages"] as ReadonlyArray<Message>) : []

const text = (message: Message | undefined): string => (typeof message?.content === "string" ? message.content : "")

const agentReply = (tool: string, args: Record<string, unknown>): string =>
  JSON.stringify({ reflect: { progress: `calling ${tool}` }, plan: { next: tool }, action: { tool, args } })

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
    if (steps < viewSteps) {
      return {
        content: agentReply("view_node", { node_id: roots[steps % Math.max(1, roots.length)] ?? "missing", question: questionText }),
        reasoning: `step ${steps + 1}: look at a scene first`,
        ...delay
      }
    }
    const letter = options.wrong?.has(question.questionId) === true ? wrongLetter(question.answer) : question.answer
    return {
      content: JSON.stringify({
        reflect: { seen: "the scene" },
        plan: { next: "answer" },
        action: { tool: "submit_answer", args: { answer: letter, evidence: "the scene summary", reasoning: "read it" } }
      }),
      reasoning: "enough evidence",
      ...delay
    }
  }

  const summarizer = (): ChatReply | Fault => {
    const injected = fault()
    if (injected !== undefined) return injected
    return {
      content: "The host works at the stove; four eggs sit in a black skillet.\ndetails=seen in the card; confidence=0.9",
      ...(options.toolDelayMs === undefined ? {} : { delayMs: options.toolDelayMs })
    }
  }

  return { [agentModel]: agent, [toolModel]: summarizer, [vlmModel]: summarizer }
}
