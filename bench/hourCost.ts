// What an hour of video costs to build, per role, computed by the builder's own estimator (the figures
// `vtree build --dry-run` prints) — nothing here is typed by hand but the two outside rates it is compared
// with: DVD's grid (10-s clips sampled at 2 fps, one vision call of 20 frames each) run through the same
// estimator, and a native-video model's published rate of about 300 tokens a second (258 per frame at 1 fps,
// 32 of audio, a few of timestamps).
//
//   npx tsx bench/run.ts hourCost
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect } from "effect"
import { estimateRoles, perHour, type RoleCosts, speechFigures } from "../src/programs/builder/BuildCost.js"
import { loadBuildPrompts } from "../src/programs/builder/BuildPrompts.js"
import { estimateBuild } from "../src/programs/builder/Estimate.js"
import { type BuildParameters, defaultParameters } from "../src/programs/builder/Plan.js"
import { packagedPromptsDir } from "../src/programs/prompts/PromptPack.js"
import type { BenchModule } from "./run.js"

// Speech at a brisk 150 words a minute is about 900 characters a minute of subtitles.
const subtitleChars = 54_000
// OpenAI's upload limit, the default of VTREE_ASR_MAX_UPLOAD_BYTES.
const uploadBytes = 25_000_000
const nativeTokensPerSecond = 258 + 32 + 10

const hourAt = (parameters: BuildParameters, promptChars: { event: number; scene: number; registry?: number }) =>
  estimateRoles(
    estimateBuild({ durationSeconds: 3600, width: 1280, height: 720, subtitleChars, promptChars, parameters }),
    speechFigures(3600, uploadBytes)
  )

const k = (n: number) => n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${Math.round(n / 1000).toLocaleString("en-US")} k`

const row = (name: string, c: RoleCosts, visionOnly = false) => {
  const [v, t, s] = [c.vision, c.text, c.speech].map((f) => perHour(f, c.durationSeconds))
  const prompt = v!.promptTokens + (visionOnly ? 0 : t!.promptTokens)
  const reply = v!.completionTokens + (visionOnly ? 0 : t!.completionTokens)
  return `| ${name} | ${v!.calls} × ${Math.round(v!.frames / Math.max(1, v!.calls))} | ${
    visionOnly ? "—" : t!.calls
  } | ${visionOnly ? "—" : s!.calls} | ${v!.frames.toLocaleString("en-US")} | ${k(v!.imageTokens)} | ${
    k(prompt - v!.imageTokens)
  } | ${k(prompt)} | ${k(reply)} | ${k(prompt + reply)} |`
}

const benchmark: BenchModule = {
  title: "The cost of an hour of video, per role",
  run: () =>
    Effect.runPromise(
      Effect.gen(function*() {
        const prompts = yield* loadBuildPrompts(packagedPromptsDir("en"))
        const chars = { event: prompts.event.length, scene: prompts.scene.length, registry: prompts.registry!.length }
        const defaults = hourAt(defaultParameters, chars)
        const dense = hourAt({ ...defaultParameters, frameInterval: 1, framesPerCall: 20 }, chars)
        const dvd = hourAt({ ...defaultParameters, frameInterval: 0.5, eventSeconds: 10, framesPerCall: 20 }, chars)
        const native = nativeTokensPerSecond * 3600
        return [
          "Per hour of video, from `estimateBuild` (what `vtree build --dry-run` prints) for a 1280×720 source, the packaged",
          "English prompts and 54,000 characters of subtitles (150 words a minute). Vision calls are the event calls (frames",
          "640 px wide: 23 × 13 patches of 28 px and a label, 307 tokens each); text calls are the scenes and the entity",
          "registry (one call an hour); speech calls are uploads of 25 MB (773 s of 16 kHz audio) when there are no subtitles.",
          "Token counts are the estimator's: text at 4 characters a token, replies at a typical card size.",
          "",
          "| settings | vision calls × frames | text calls | speech calls | frames | image tokens | text tokens in | prompt tokens | reply tokens | all tokens |",
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
          row("vtree defaults (2 s, ≤ 12 frames a call, 20 s events, 300 s scenes)", defaults),
          row("vtree at --frame-interval 1 --frames-per-call 20", dense),
          row("DVD's grid through the same estimator (10-s clips at 2 fps), vision only", dvd, true),
          `| a native-video model (${nativeTokensPerSecond} tokens a second: 258 a frame at 1 fps, 32 of audio, ~10 of time) | — | — | — | 3,600 | ${
            k(258 * 3600)
          } | — | ${k(native)} | — | ${k(native)} |`,
          "",
          `At the defaults vtree sends ${
            Math.round(perHour(defaults.vision, 3600).frames / perHour(dvd.vision, 3600).frames * 100)
          } % of DVD's frames and ${
            Math.round(perHour(defaults.vision, 3600).calls / perHour(dvd.vision, 3600).calls * 100)
          } % of its vision calls an hour; its whole build (all roles) reads ${
            (
              (perHour(defaults.vision, 3600).promptTokens + perHour(defaults.text, 3600).promptTokens) / native
            ).toFixed(2)
          }× the prompt tokens a native-video model is sent for the same hour — once, after which every question reads the tree.`,
          "USD per role: the same tables under `vtree build` and `--dry-run` with `--prices FILE` or VTREE_VLM_PRICE /",
          "VTREE_TOOL_PRICE; speech is billed by the minute (60 a hour), not by token."
        ].join("\n")
      }).pipe(Effect.provide(NodeContext.layer))
    )
}

export default benchmark
