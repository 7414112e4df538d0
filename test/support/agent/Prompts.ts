// A minimal PromptManager for unit tests. Tool prompts render as `#<name>` plus `key=value` lines, so a
// fake model can tell which round it is answering and for which node.
import type { Labels, PromptManager, ToolPromptName } from "../../../src/programs/prompts/PromptManager.js"

export const testLabels: Labels = {
  node: "[Node]",
  levelScene: "Scene",
  levelEvent: "Event",
  levelFrame: "Frame",
  summary: "[Summary]",
  verified: "[Verified]",
  entities: "[Entities]",
  onScreenText: "[On-screen text]",
  children: "[Children]",
  starStrong: "★★",
  starWeak: "★",
  searchResults: "[Search results]",
  subtitleContext: "[Subtitle context]",
  visualObservation: "[Visual observation]",
  check: "[Check]",
  summaryError: "[Summary error]",
  visionError: "[Vision error]",
  skipped: "skipped (call failed)",
  ok: "[ok]",
  answerSubmitted: "answer submitted",
  toolError: "[Tool error]",
  parseErrorMessage: "PARSE-ERROR ({{reason}}): reply with one JSON object.",
  unknownToolMessage: "UNKNOWN-TOOL {{tool}}; use one of: {{tools}}",
  untrustedExternal: "[External]",
  toolSystem: "TOOL-SYSTEM",
  anchorNote: "ANCHOR-NOTE",
  toolsProtocolNote: "TOOLS-PROTOCOL",
  noToolCallMessage: "NO-TOOL-CALL ({{reason}})",
  finalAnswerMessage: "FINAL-ANSWER: reply with submit_answer now.",
  finalAnswerCallMessage: "FINAL-ANSWER-CALL: call submit_answer now.",
  openQuestion: "OPEN-QUESTION: answer in words."
}

export const renderToolPrompt = (name: ToolPromptName, vars: Readonly<Record<string, string>>): string =>
  [`#${name}`, ...Object.entries(vars).map(([key, value]) => `${key}=${value}`)].join("\n")

/** Reads back a `key=value` line of a rendered test prompt (the first line of the value). */
export const promptVar = (prompt: string, key: string): string | undefined =>
  prompt.split("\n").find((line) => line.startsWith(`${key}=`))?.slice(key.length + 1)

export const promptName = (prompt: string): string => prompt.split("\n")[0]!.slice(1)

export const testPrompts = (labels: Labels = testLabels): PromptManager => ({
  dir: "/prompts/test",
  labels,
  skills: [
    {
      name: "counting",
      description: "Count things",
      always: false,
      taskType: "Counting Problem",
      body: "Count carefully."
    }
  ],
  categories: new Map(),
  hint: (kind) => ({
    taskType: kind.taskType ?? "",
    skill: kind.taskType === "Counting Problem" ? "counting" : null,
    note: ""
  }),
  systemPrompt: (options) => `SYSTEM mode=${options.skillMode} task=${options.taskType ?? "-"}`,
  userPrompt: (input) => `QUESTION ${input.question}\n${input.options.join("\n")}\nROOTS ${input.rootIds.join(",")}`,
  toolPrompt: renderToolPrompt,
  readSkill: (name) => (name === "counting" ? "Count carefully." : undefined)
})
