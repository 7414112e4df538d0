import { Effect, Either, Option } from "effect"
import { OCRProvider } from "../../services/OCRProvider.js"
import { VLMProvider } from "../../services/VLMProvider.js"
import { errorText, type ToolContext } from "./ToolContext.js"

/**
 * observe_frame: the frames of 1–4 L3 nodes (or one L2 node's sampled L3 children) shown to the vision
 * model, with the OCR transcript when an OCR service is configured. Every degraded path still returns
 * text for the agent: bad ids → `[Tool error]`, OCR failure → no transcript (counted), extract failure
 * → `[Vision error]`, verify failure → `[Check] skipped`.
 */
export const observeFrame = Effect.fn("Vision.observeFrame")(function*(
  context: ToolContext,
  nodeIds: ReadonlyArray<string>,
  question: string
) {
  const { labels } = context.prompts
  const selection = yield* Effect.either(context.tree.resolveFrames(nodeIds))
  if (Either.isLeft(selection)) return `${labels.toolError} ${selection.left.message}`
  const { paths } = selection.right

  // The subtitle of the node the agent named first is what was being said around these frames.
  const subtitle = (yield* Effect.either(context.tree.subtitle(nodeIds[0]!))).pipe(
    Either.getOrElse(() => "")
  ).trim()

  const ocr = yield* Effect.serviceOption(OCRProvider)
  let transcript = ""
  if (Option.isSome(ocr)) {
    const result = yield* Effect.either(ocr.value.transcribeFrames(paths))
    if (Either.isRight(result)) transcript = result.right.trim()
    else context.stats.ocrFailed += 1
  }

  const vlm = yield* VLMProvider
  const vars: Record<string, string> = {
    question,
    node_ids: selection.right.nodeIds.join(", "),
    subtitle,
    ocr: transcript
  }
  const ask = (prompt: string) =>
    Effect.either(vlm.chatWithImages({ system: labels.toolSystem, text: prompt, images: paths }))

  const lines: Array<string> = []
  if (subtitle !== "") lines.push(`${labels.subtitleContext} ${subtitle}`)
  const draft = yield* ask(context.prompts.toolPrompt("observe_frame_extract", vars))
  if (Either.isLeft(draft)) {
    context.stats.visionFailed += 1
    lines.push(`${labels.visionError} ${errorText(draft.left)}`)
    return lines.join("\n")
  }
  const observation = draft.right.content.trim()
  lines.push(`${labels.visualObservation} ${observation}`)
  if (context.verifyVision) {
    const checked = yield* ask(context.prompts.toolPrompt("observe_frame_verify", { ...vars, draft: observation }))
    if (Either.isRight(checked)) lines.push(`${labels.check} ${checked.right.content.trim()}`)
    else {
      context.stats.visionVerifyFailed += 1
      lines.push(`${labels.check} ${labels.skipped}`)
    }
  }
  return lines.join("\n")
})
