/** `judge`: the judges (VTREE_JUDGE_*) and the buffer their calls wait in until they are stored with the run. */
import { Layer } from "effect"
import * as MemoryCallBuffer from "../../layers/memory/MemoryCallBuffer.js"
import * as OpenAiJudge from "../../layers/openai/OpenAiJudge.js"

export const judgeLayers = Layer.merge(OpenAiJudge.layerConfig, MemoryCallBuffer.layer)
