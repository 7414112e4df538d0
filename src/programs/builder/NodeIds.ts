/** Node ids and frame file names of a built tree (as domain/Tree.ts reads them), and the Video-MME duration band. */

const pad = (n: number) => String(n).padStart(3, "0")

export const sceneId = (videoId: string, scene: number) => `${videoId}_L1_${pad(scene)}`
export const eventId = (videoId: string, scene: number, event: number) => `${sceneId(videoId, scene)}_L2_${pad(event)}`
export const frameId = (videoId: string, scene: number, event: number, frame: number) =>
  `${eventId(videoId, scene, event)}_L3_${pad(frame)}`

/** `frames/<node id without "<videoID>_">.jpg`, the file observe_frame looks for. */
export const frameFile = (videoId: string, nodeId: string) => `frames/${nodeId.slice(videoId.length + 1)}.jpg`

/**
 * Video-MME's bands are short < 2 min, medium 4–15 min, long 30–60 min. Lengths between bands go to
 * the nearer one (cut at 3 min and at 22.5 min), and anything over an hour is long.
 */
export const durationCategory = (seconds: number): "short" | "medium" | "long" =>
  seconds < 180 ? "short" : seconds < 1350 ? "medium" : "long"
