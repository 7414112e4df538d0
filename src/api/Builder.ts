/**
 * Building trees from videos, as `vtree build` does: list and probe the videos, then `buildTree`. Needs
 * `MediaProbe` and `FrameSource` (`Ffmpeg.layerConfig`), the model ports, and for videos without
 * subtitles optionally `SpeechToText` (`OpenAiSpeech.layer`).
 */
export { type RoleCosts, type RoleFigures } from "../programs/builder/BuildCost.js"
export { BuildError, BuildErrorReason } from "../programs/builder/BuildError.js"
export {
  type BuildEvent,
  type BuildInput,
  type BuildOptions,
  type LoadedSubtitles,
  type VideoSummary
} from "../programs/builder/BuildOptions.js"
export { type BuildPrompts, loadBuildPrompts } from "../programs/builder/BuildPrompts.js"
export { buildTree } from "../programs/builder/BuildTree.js"
export { type BuildEstimate, estimateBuild } from "../programs/builder/Estimate.js"
export {
  checkWritable,
  listVideos,
  type ProbedVideo,
  probeVideos,
  type VideoInput
} from "../programs/builder/Inputs.js"
export { type BuildParameters, defaultParameters } from "../programs/builder/Plan.js"
