import { Schema } from "effect"

/** Who made a provider call: the agent, the tool model, vision, embeddings or OCR. The one list of them. */
export const callRoles = ["agent", "tool", "vlm", "embed", "ocr"] as const
export const CallRole = Schema.Literal(...callRoles)
