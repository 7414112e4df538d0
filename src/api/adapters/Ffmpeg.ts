/** MediaProbe and FrameSource over the system ffmpeg and ffprobe. */
export type { FfmpegTools } from "../../config/FfmpegConfig.js"
export { type FfmpegOptions, layer, layerConfig, make } from "../../layers/ffmpeg/Ffmpeg.js"
