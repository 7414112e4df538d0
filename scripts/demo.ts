// `npm run demo`: the whole path on the bundled samples, offline — `vtree build` turns the short video
// in samples/video into a tree, `vtree infer` answers questions over it and the prebuilt sample tree,
// `vtree report` shows the run. No model is needed: the CLI talks over real HTTP to the project's
// OpenAI-compatible simulator, where deliberately simple "models" answer. The build calls get cards
// made from the prompt text (timestamps and subtitles; the simulator cannot see images); the agent is a
// lexical baseline, not a language model — it reads the prompts it is sent and never sees the answer
// key — so the accuracy it reaches says nothing about vtree with a real model. Its purpose is to show a
// newcomer every moving part: the builder, the agent loop, the tools, progress, the SQLite run and the
// report. Without ffmpeg the build step is skipped (one line says so) and the prebuilt tree is used.
import { spawn, spawnSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { answerBuildCalls } from "../test/support/openai-sim/builder.js"
import * as OpenAiSim from "../test/support/openai-sim/index.js"
import type { SimRequest } from "../test/support/openai-sim/index.js"
import { videoMmeRows } from "./video-mme-rows.js"

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

const words = (text: string): Set<string> => new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? [])

const nodeIds = (
  text: string
): Array<string> => [...new Set(text.match(/\b[A-Za-z0-9_-]+_L1_\d{3}(?:_L2_\d{3})?(?:_L3_\d{3})?\b/g) ?? [])]

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

const sampleVideoId = "vtDemo0001a"

/** Questions about samples/video, answerable from its subtitles, as Video-MME rows. */
const videoQuestions = videoMmeRows(
  { video_id: "002", duration: "short", domain: "Life Record", sub_category: "Food", videoID: sampleVideoId },
  [
    {
      question_id: "demo-1",
      task_type: "Counting Problem",
      question: "How many eggs are cracked into the sauce?",
      options: ["A. Two", "B. Three", "C. Four", "D. Six"],
      answer: "C"
    },
    {
      question_id: "demo-2",
      task_type: "Temporal Perception",
      question: "How long is the pan covered with a lid?",
      options: ["A. One minute", "B. Six minutes", "C. Ten minutes", "D. Twenty minutes"],
      answer: "B"
    }
  ]
)

const hasFfmpeg = (): boolean =>
  [process.env["VTREE_FFMPEG"] || "ffmpeg", process.env["VTREE_FFPROBE"] || "ffprobe"].every((tool) => {
    const probe = spawnSync(tool, ["-version"], { stdio: "ignore" })
    return probe.error === undefined && probe.status === 0
  })

const main = async () => {
  const sim = await OpenAiSim.start({
    chat: {
      "demo-agent": (request) => ({ content: agent(request) }),
      "demo-tool": (request) => ({ content: tool(request) }),
      "demo-vision": () => ({ content: vision() })
    },
    intercept: answerBuildCalls
  })
  const work = mkdtempSync(join(tmpdir(), "vtree-demo-"))
  const db = join(work, "demo.db")
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
  let trees = join(root, "samples/trees")
  let questions = join(root, "samples/questions.jsonl")
  if (hasFfmpeg()) {
    // The built tree sits beside a copy of the prebuilt one, so one run asks about both videos.
    trees = join(work, "trees")
    mkdirSync(trees, { recursive: true })
    cpSync(join(root, "samples/trees/vtSmpl0001a"), join(trees, "vtSmpl0001a"), { recursive: true })
    process.stderr.write(`demo: vtree build samples/video/${sampleVideoId}.mp4 --out ${trees}\n`)
    const built = await run([
      "build",
      join(root, "samples/video", `${sampleVideoId}.mp4`),
      "--out",
      trees,
      "--domain",
      "Life Record"
    ])
    if (built !== 0) {
      await sim.close()
      process.exit(built)
    }
    questions = join(work, "questions.jsonl")
    const rows = readFileSync(join(root, "samples/questions.jsonl"), "utf8").trimEnd()
    writeFileSync(questions, `${rows}\n${videoQuestions.map((row) => JSON.stringify(row)).join("\n")}\n`)
  } else {
    process.stderr.write(
      "demo: ffmpeg not found — skipping vtree build, using the prebuilt tree in samples/trees (install ffmpeg, e.g. apt-get install ffmpeg, to see the builder)\n"
    )
  }
  const status = await run([
    "infer",
    "--trees",
    trees,
    "--questions",
    questions,
    "--db",
    db,
    "--concurrency",
    "4"
  ])
  if (status === 0) {
    process.stderr.write(
      `\ndemo: the same run as \`vtree report --db ${db}\` shows it (try --format html --out run.html):\n`
    )
    await run(["report", "--db", db])
  }
  await sim.close()
  process.exit(status)
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
