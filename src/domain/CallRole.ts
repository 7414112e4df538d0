import { Schema } from "effect"

/** Who made a provider call: the agent, the tool model, vision, embeddings, OCR or a judge of open-ended answers. The one list of them. */
export const callRoles = ["agent", "tool", "vlm", "embed", "ocr", "judge"] as const
export const CallRole = Schema.Literal(...callRoles)
