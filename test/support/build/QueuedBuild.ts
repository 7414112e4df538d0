// What the queued-build tests and the build-queue benchmark share: synthetic videos of different lengths whose
// cues name them (so every model call of every video asks something no other call asks), the build flags that
// make short events (a few calls a video), and the build calls an openai-sim saw, by their body.
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { makeSyntheticVideo, type SyntheticVideo } from "../media/SyntheticVideo.js"
import { buildCallKind } from "../openai-sim/builder.js"
import type * as OpenAiSim from "../openai-sim/index.js"

/** `count` videos `q1` … in `dir`, the first the longest (each 6 s shorter than the one before, at least 12 s). */
export const queuedVideos = async (
  dir: string,
  count: number,
  longest = 30
): Promise<ReadonlyArray<SyntheticVideo>> => {
  const videos: Array<SyntheticVideo> = []
  for (let i = 0; i < count; i++) {
    const name = `q${i + 1}`
    const seconds = Math.max(12, longest - 6 * i)
    videos.push(
      await makeSyntheticVideo({
        dir,
        name,
        segmentSeconds: [seconds / 2, seconds / 2],
        width: 160,
        height: 90,
        fps: 5,
        cues: [
          { start: 0.5, end: 3, text: `Video ${name} begins.` },
          { start: seconds / 2 + 0.5, end: seconds / 2 + 3, text: `Video ${name} is half way.` }
        ]
      })
    )
  }
  return videos
}

/** Short events and scenes: a 30 s video is about a dozen calls. */
export const queuedBuildFlags = [
  "--event-seconds",
  "4",
  "--frames-per-call",
  "2",
  "--scene-seconds",
  "12",
  "--frame-width",
  "160",
  "--concurrency",
  "1"
]

const systemOf = (request: OpenAiSim.SimRequest): string => {
  const messages = request.body["messages"] as ReadonlyArray<{ role: string; content: unknown }> | undefined
  const system = messages?.find((m) => m.role === "system")?.content
  return typeof system === "string" ? system : ""
}

/** The sha256 of each build call's body the simulator received, in order. */
export const buildCallBodies = (sim: OpenAiSim.OpenAiSim): ReadonlyArray<string> =>
  sim.requests.filter((r) => buildCallKind(systemOf(r)) !== undefined).map((r) =>
    createHash("sha256").update(JSON.stringify(r.body)).digest("hex")
  )

/**
 * The calls a tree took: one per event and scene node (levels 1 and 2), and one per entity-registry stretch
 * (an hour of video), counted from its checkpoints.
 */
export const treeCalls = (treeDir: string): number => {
  const tree = JSON.parse(readFileSync(join(treeDir, "tree.json"), "utf8")) as {
    nodes: Record<string, { level: number }>
  }
  const checkpoints = join(treeDir, ".vtree", "checkpoints")
  const registry = existsSync(checkpoints)
    ? readdirSync(checkpoints).filter((name) =>
      name.endsWith(".json") &&
      (JSON.parse(readFileSync(join(checkpoints, name), "utf8")) as { kind?: string }).kind === "registry"
    ).length
    : 0
  return Object.values(tree.nodes).filter((node) => node.level < 3).length + registry
}
