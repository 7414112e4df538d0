// Frames with known text for OCR tests: ffmpeg draws the lines in DejaVu Sans (what fontconfig ships
// with ffmpeg on Debian) onto a white video frame and writes it as a JPEG, like the tree builder's frames.
import { execFile } from "node:child_process"
import { writeFile } from "node:fs/promises"
import { promisify } from "node:util"

const run = promisify(execFile)

export interface FrameSpec {
  readonly lines: ReadonlyArray<string>
  readonly width?: number
  readonly height?: number
  readonly fontSize?: number
}

/** Writes `path` (a .jpg) with `lines` drawn one under the other. */
export const renderTextFrame = async (path: string, spec: FrameSpec): Promise<void> => {
  const width = spec.width ?? 640
  const height = spec.height ?? 360
  const fontSize = spec.fontSize ?? 44
  // Text goes through files so no line needs drawtext escaping.
  const filters = await Promise.all(spec.lines.map(async (line, index) => {
    const textFile = `${path}.line${index}.txt`
    await writeFile(textFile, line)
    return `drawtext=font='DejaVu Sans':textfile=${textFile}:fontsize=${fontSize}:fontcolor=black:x=32:y=${
      40 + index * Math.round(fontSize * 1.8)
    }`
  }))
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `color=c=white:s=${width}x${height}`,
    "-frames:v",
    "1",
    "-vf",
    filters.join(","),
    "-q:v",
    "3",
    path
  ])
}
