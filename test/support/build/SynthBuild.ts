// What the `vtree build` CLI tests share (in-process in test/integration/build/BuildCli.test.ts, the built
// CLI under signals in test/e2e/build/BuildSignals.test.ts): one synthetic video with subtitles, made by
// the real ffmpeg, the question asked about it, and openai-sim answering both the agent and the build calls.
import { tempDir } from "../harness/Cli.js"
import { policyScripts, type SampleQuestion } from "../harness/Policy.js"
import { makeSyntheticVideo, type SyntheticVideo } from "../media/SyntheticVideo.js"
import { answerBuildCalls, buildCallKind } from "../openai-sim/builder.js"
import * as OpenAiSim from "../openai-sim/index.js"

export const question: SampleQuestion = {
  questionId: "synth-1",
  question: "What colour is the room at the start of the video?",
  answer: "A",
  videoId: "synth",
  taskType: "Attribute Perception"
}

const systemOf = (request: OpenAiSim.SimRequest): string => {
  const messages = request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }> | undefined
  const system = messages?.find((m) => m.role === "system")?.content
  return typeof system === "string" ? system : ""
}

/** How many build calls of the cards (event and scene) the simulator has answered; the registry's are `registryCalls`. */
export const buildCalls = (sim: OpenAiSim.OpenAiSim) =>
  sim.requests.filter((r) => {
    const kind = buildCallKind(systemOf(r))
    return kind === "event" || kind === "scene"
  }).length

/** How many entity registry calls the simulator has answered. */
export const registryCalls = (sim: OpenAiSim.OpenAiSim) =>
  sim.requests.filter((r) => buildCallKind(systemOf(r)) === "registry").length

/** A folder with a 90-second synthetic video ("synth", four shots, three cues) in it. */
export const synthVideo = async (): Promise<
  { readonly work: ReturnType<typeof tempDir>; readonly video: SyntheticVideo }
> => {
  const work = tempDir()
  const video = await makeSyntheticVideo({
    dir: work.dir,
    name: "synth",
    segmentSeconds: [21, 19, 22, 28],
    cues: [
      { start: 0.5, end: 3, text: "The red room is empty." },
      { start: 14, end: 17, text: "A test pattern appears." },
      { start: 50, end: 53, text: "Colour bars fill the screen." }
    ]
  })
  return { work, video }
}

/** openai-sim answering the agent for `question` and every build call from its prompt text, each after `delayMs`. */
export const buildSim = (delayMs = 0) =>
  OpenAiSim.start({
    chat: policyScripts({ questions: [question] }),
    intercept: (request) => {
      const reply = answerBuildCalls(request)
      return reply === undefined || delayMs === 0 ? reply : { ...reply, delayMs }
    }
  })
