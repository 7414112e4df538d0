/**
 * Writes samples/video/vtDemo0001a.mp4 and its .srt: a 30-second, 320×180 clip of four visually
 * distinct shots (a title card and three "steps" of the sample cooking show), each labelled, with the
 * time burned into every frame and a quiet tone, small enough to commit (< 300 KB). `npm run demo`
 * builds a tree from it. Deterministic for a given ffmpeg: one encoder thread, bit-exact flags, no
 * creation time.
 *
 *   npx tsx scripts/make-sample-video.ts [outDir=samples/video]
 */
import { mkdirSync, statSync } from "node:fs"
import * as path from "node:path"
import { makeSyntheticVideo } from "../test/support/media/SyntheticVideo.js"

// Eleven characters, like the YouTube IDs Video-MME names its videos by.
export const sampleVideoId = "vtDemo0001a"
const outDir = path.resolve(process.argv[2] ?? "samples/video")
mkdirSync(outDir, { recursive: true })

const video = await makeSyntheticVideo({
  dir: outDir,
  name: sampleVideoId,
  segmentSeconds: [6, 8, 8, 8],
  labels: ["WEEKNIGHT KITCHEN", "DICE THE ONION", "CRACK FOUR EGGS", "SERVE WITH TOAST"],
  width: 320,
  height: 180,
  fps: 12,
  subtitleStream: false,
  cues: [
    { start: 0.5, end: 4.5, text: "Welcome back to Weeknight Kitchen." },
    { start: 6.5, end: 10, text: "First, dice one onion and a red pepper." },
    { start: 10.5, end: 13.5, text: "Keep the pieces small so they soften quickly." },
    { start: 14.5, end: 18, text: "Make four wells in the sauce and crack an egg into each." },
    { start: 18.5, end: 21.5, text: "Cover with a lid for six minutes." },
    { start: 22.5, end: 26, text: "Finish with feta and parsley, and serve with toast." },
    { start: 26.5, end: 29.5, text: "See you next week." }
  ],
  videoCodecArgs: [
    "-c:v",
    "libx264",
    "-preset",
    "medium",
    "-crf",
    "34",
    "-threads",
    "1",
    "-g",
    "120",
    "-flags:v",
    "+bitexact"
  ],
  audioBitrate: "16k",
  extraOutputArgs: ["-fflags", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1"]
})
for (const file of [video.video, video.srt]) {
  process.stdout.write(`${path.relative(process.cwd(), file)}  ${statSync(file).size} bytes\n`)
}
