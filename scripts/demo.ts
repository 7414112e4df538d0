// `npm run demo`: the whole `vtree infer` pipeline on the bundled sample, offline. No model is needed:
// the CLI talks over real HTTP to the project's OpenAI-compatible simulator, where a deliberately simple
// "model" answers. It is a lexical baseline, not a language model — it reads the prompts it is sent
// and never sees the answer key — so the accuracy it reaches says nothing about vtree with a real model.
// Its purpose is to show a newcomer every moving part: the agent loop, the tools, the progress line,
// the SQLite run and `vtree report`.
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as OpenAiSim from "../test/support/openai-sim/index.js"
import type { SimRequest } from "../test/support/openai-sim/index.js"

const root = fileURLToPath(new URL("..", import.meta.url))

interface Message {
  readonly role: string
  readonly content: unknown
}

const messagesOf = (request: SimRequest): ReadonlyArray<Message> =>
  Array.isArray(request.body["messages"]) ? (request.body["messages"] as ReadonlyArray<Message>) : []

const textOf = (message: Message | undefined): string => {
  if (typeof message?.content === "string") return message.content
  if (Array.isArray(message?.content)) {
    return (message.content as ReadonlyArray<{ type?: string; text?: string }>)
      .map((part) => (part.type === "text" ? part.text ?? "" : ""))
      .join("\n")
  }
  return ""
}

const words = (text: string): Set<string> =>
  new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? [])

const nodeIds = (text: string): Array<string> => [...new Set(text.match(/\b[A-Za-z0-9_-]+_L1_\d{3}(?:_L2_\d{3})?(?:_L3_\d{3})?\b/g) ?? [])]

const reply = (tool: string, args: Record<string, unknown>, note: string): string =>
  JSON.stringify({ reflect: { learned: note }, plan: { next: tool }, action: { tool, args } })

/**
 * The baseline agent: search with the question, open the best hits, then pick the option whose words
 * overlap most with everything the tools returned.
 */
const agent = (request: SimRequest): string => {
  const messages = messagesOf(request)
  const user = textOf(messages.find((m) => m.role === "user"))
  const options = user.split("\n").filter((line) => /^\s*[A-Z]\.\s/.test(line)).map((line) => line.trim())
  const question = user.split("\n").find((line) => line.trim() !== "" && !/^\s*[A-Z]\.\s/.test(line)) ?? user
  const toolResults = messages.slice(2).filter((m) => m.role === "user").map(textOf)
  const step = messages.filter((m) => m.role === "assistant").length
  if (step === 0) return reply("search_similar", { query: question.slice(0, 200), question }, "starting with a search")
  const seen = toolResults.join("\n")
  const hits = nodeIds(toolResults[0] ?? "")
  if (step <= 2 && hits[step - 1] !== undefined) {
    return reply("view_node", { node_id: hits[step - 1], question }, `opening search hit ${step}`)
  }
  const evidence = words(seen)
  let best = { letter: options[0]?.[0] ?? "A", score: -1 }
  for (const option of options) {
    const score = [...words(option.slice(2))].filter((word) => evidence.has(word)).length
    if (score > best.score) best = { letter: option[0]!, score }
  }
  return reply("submit_answer", {
    answer: best.letter,
    evidence: `${best.score} words of option ${best.letter} appear in the tool results`,
    reasoning: "lexical overlap baseline"
  }, "enough read")
}

/** The baseline summarizer: echo the source lines that share words with the question. */
const tool = (request: SimRequest): string => {
  const prompt = textOf(messagesOf(request).at(-1))
  const question = words(prompt.match(/Question:\s*(.*)/)?.[1] ?? "")
  const lines = prompt.split("\n").filter((line) => [...words(line)].some((word) => question.has(word)))
  const facts = lines.slice(0, 6).join(" ").slice(0, 600) || "not shown"
  return prompt.includes("confidence=") ? `details=${facts}; confidence=0.5` : facts
}

const vision = (): string => "A frame from the sample video (the demo has no vision model)."

const main = async () => {
  const sim = await OpenAiSim.start({
    chat: {
      "demo-agent": (request) => ({ content: agent(request) }),
      "demo-tool": (request) => ({ content: tool(request) }),
      "demo-vision": () => ({ content: vision() })
    }
  })
  const db = join(mkdtempSync(join(tmpdir(), "vtree-demo-")), "demo.db")
  const env = {
    ...process.env,
    VTREE_LLM_BASE_URL: sim.url,
    VTREE_LLM_API_KEY: "demo-key",
    VTREE_LLM_MODEL: "demo-agent",
    VTREE_TOOL_LLM_MODEL: "demo-tool",
    VTREE_VLM_MODEL: "demo-vision"
  }
  // Asynchronous on purpose: the simulator answers from this process's event loop.
  const run = (args: ReadonlyArray<string>) =>
    new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [join(root, "dist/bin.js"), ...args], { env, stdio: "inherit" })
      child.on("close", (code) => resolve(code ?? 1))
    })
  process.stderr.write(`demo: simulator at ${sim.url}; run stored in ${db}\n`)
  const status = await run([
    "infer",
    "--trees", join(root, "samples/trees"),
    "--questions", join(root, "samples/questions.jsonl"),
    "--db", db,
    "--concurrency", "4"
  ])
  if (status === 0) {
    process.stderr.write(`\ndemo: the same run as \`vtree report --db ${db}\` shows it (try --format html --out run.html):\n`)
    await run(["report", "--db", db])
  }
  await sim.close()
  process.exit(status)
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
