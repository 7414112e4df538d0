import { Config, Effect, Option } from "effect"
import { text } from "./ConfigVariables.js"

/** Where the two programs are; each falls back to the name on PATH. */
export interface FfmpegTools {
  readonly ffmpeg: Tool
  readonly ffprobe: Tool
}

export interface Tool {
  readonly name: "ffmpeg" | "ffprobe"
  readonly command: string
  /** The variable that overrides the PATH lookup, named in the error when the program is missing. */
  readonly variable: string
  readonly fromVariable: boolean
}

const tool = (name: "ffmpeg" | "ffprobe", variable: string) =>
  text(variable).pipe(Config.map(Option.match({
    onNone: (): Tool => ({ name, command: name, variable, fromVariable: false }),
    onSome: (command): Tool => ({ name, command, variable, fromVariable: true })
  })))

/** Reads VTREE_FFMPEG and VTREE_FFPROBE; a missing program is reported when it is run, not here. */
export const loadFfmpegTools: Effect.Effect<FfmpegTools> = Effect.orDie(Config.all({
  ffmpeg: tool("ffmpeg", "VTREE_FFMPEG"),
  ffprobe: tool("ffprobe", "VTREE_FFPROBE")
}))
