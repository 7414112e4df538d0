/**
 * The entity registry's model calls for one video: one text call per part (an hour of video, EntityRegistry.ts)
 * over its scene and event cards, each checkpointed like the card calls (`checkpointedCall`), so a rerun asks
 * only the parts not yet answered; then the parts merged. A build without a registry prompt makes none.
 */
import { Effect } from "effect"
import type { TreeEntity } from "../../domain/Tree.js"
import { LLMProvider } from "../../services/LLMProvider.js"
import type { BuildOptions } from "./BuildOptions.js"
import { type CallScope, finished, providerFailed, save } from "./Captioning.js"
import { checkpointedCall, checkpointKey, readRegistryCheckpoint, type RegistryCheckpoint } from "./Checkpoint.js"
import {
  decodeRegistryReply,
  mergeRegistry,
  registryEntry,
  registryMaxTokens,
  type RegistryNode,
  registryNodes,
  registryParts,
  registryText
} from "./EntityRegistry.js"
import type { AssembledScene } from "./TreeAssembly.js"

/** What one part's call sends and the checkpoint it is saved under; a dry run computes the same keys. */
export const registryRequest = (
  part: ReadonlyArray<RegistryNode>,
  index: number,
  total: number,
  options: Pick<BuildOptions, "models" | "prompts">
) => {
  const text = registryText(part, index, total)
  const key = checkpointKey({
    kind: "registry",
    model: options.models.llm,
    prompt: options.prompts.registry ?? "",
    text,
    images: [],
    parameters: { maxTokens: registryMaxTokens }
  })
  return { text, key }
}

/** The registry requests of a video's scenes: none when the build has no registry prompt or no scene. */
export const registryRequests = (
  videoId: string,
  scenes: ReadonlyArray<AssembledScene>,
  options: Pick<BuildOptions, "models" | "prompts">
) => {
  if (options.prompts.registry === undefined) return { nodes: [], parts: [] }
  const nodes = registryNodes(videoId, scenes)
  const parts = registryParts(nodes)
  return {
    nodes,
    parts: parts.map((part, i) => ({ part, ...registryRequest(part, i, parts.length, options) }))
  }
}

const range = (part: ReadonlyArray<RegistryNode>) =>
  `${Math.round(part[0]?.start ?? 0)}–${Math.round(Math.max(0, ...part.map((node) => node.end)))} s`

/** One part: from its checkpoint, or one text call (thinking off) asked twice at most, checkpointed at once. */
const registryPart = Effect.fnUntraced(function*(
  scope: CallScope,
  request: ReturnType<typeof registryRequests>["parts"][number],
  index: number
) {
  const { options, video } = scope
  const llm = yield* LLMProvider
  const known = new Set(request.part.map((node) => node.id))
  const { checkpoint, reused } = yield* checkpointedCall({
    treeDir: video.treeDir,
    key: request.key,
    read: readRegistryCheckpoint,
    text: request.text,
    ask: (userText) =>
      llm.chat({
        role: "tool",
        thinking: false,
        maxTokens: registryMaxTokens,
        messages: [{ role: "system", content: options.prompts.registry ?? "" }, { role: "user", content: userText }]
      }),
    decode: (raw) => decodeRegistryReply(raw, known, video.videoId),
    // A registry that cannot be read twice is left empty: the cards still name everything.
    degrade: () => [],
    checkpoint: (entries, fields): RegistryCheckpoint => ({
      kind: "registry",
      ...fields,
      entities: entries.map((entry) => ({ ...entry }))
    }),
    providerFailed: providerFailed(
      video.videoId,
      `entity registry, part ${index + 1} (${range(request.part)}), text call`
    ),
    save: (made) => save(scope, made)
  })
  if (reused) yield* Effect.annotateCurrentSpan("vtree.checkpoint", "reused")
  yield* finished(scope, "registry", reused, checkpoint.usage)
  const entries = checkpoint.entities.flatMap((card) => {
    const entry = registryEntry(card, known, video.videoId)
    return entry === undefined ? [] : [entry]
  })
  return { checkpoint, entries }
}, (effect, scope, _request, index) =>
  Effect.withSpan(effect, "build_registry", {
    attributes: { "vtree.video_id": scope.video.videoId, "vtree.part": index + 1 }
  }))

/** The video's registry (empty without a registry prompt) and the checkpoints of its calls. */
export const buildRegistry = Effect.fn("RegistryCall.buildRegistry")(function*(
  scope: CallScope,
  scenes: ReadonlyArray<AssembledScene>,
  concurrency: number
) {
  const { nodes, parts } = registryRequests(scope.video.videoId, scenes, scope.options)
  const done = yield* Effect.forEach(parts, (request, i) => registryPart(scope, request, i), { concurrency })
  const entities: ReadonlyArray<TreeEntity> = mergeRegistry(done.map((part) => part.entries), nodes)
  return { entities, checkpoints: done.map((part) => part.checkpoint) }
})
