import type { ThinkingDialect } from "../../config/ProviderConfig.js"

/**
 * Extra request-body fields that switch thinking on or off, per server dialect. Each was checked
 * against the provider's own documentation:
 * - deepseek: the DeepSeek API takes `thinking: { type: "enabled" | "disabled" }` on chat completions
 *   (its "Thinking Mode" guide); older deployments pick thinking by model instead
 *   (deepseek-reasoner vs deepseek-chat), which VTREE_LLM_MODEL / VTREE_TOOL_LLM_MODEL already express,
 *   and the extra field is ignored there.
 * - dashscope: Alibaba Model Studio's OpenAI-compatible mode takes a top-level `enable_thinking`
 *   boolean for hybrid Qwen3 models ("extra_body" in the Python SDK is merged into the top level). It
 *   accepts `enable_thinking: true` only on streamed calls, so OpenAiLlm streams those (needsStreaming).
 * - vllm: the flag goes to the chat template through `chat_template_kwargs`. Qwen3 templates read
 *   `enable_thinking`, DeepSeek-V3.1 / Granite templates read `thinking`; templates ignore kwargs they
 *   do not use, so both are sent.
 * - none: the body is left standard, for servers that reject unknown fields.
 */
export const thinkingFields = (dialect: ThinkingDialect, enabled: boolean): Record<string, unknown> => {
  switch (dialect) {
    case "none":
      return {}
    case "deepseek":
      return { thinking: { type: enabled ? "enabled" : "disabled" } }
    case "dashscope":
      return { enable_thinking: enabled }
    case "vllm":
      return { chat_template_kwargs: { enable_thinking: enabled, thinking: enabled } }
  }
}

export interface ReplyText {
  readonly content: string
  readonly reasoning: string | undefined
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value : undefined

const thinkBlock = /^\s*<think>([\s\S]*?)<\/think>\s*/

/**
 * The answer and the reasoning from one reply message. DeepSeek, DashScope and older vLLM put the
 * reasoning in `reasoning_content`; vLLM ≥ 0.10 and OpenRouter-style servers in `reasoning`; a server
 * running without a reasoning parser leaves it inline as a leading `<think>…</think>` block.
 */
export const splitReply = (message: { readonly content?: unknown } & Record<string, unknown>): ReplyText => {
  const rawContent = typeof message.content === "string" ? message.content : ""
  const fieldReasoning = nonEmpty(message["reasoning_content"]) ?? nonEmpty(message["reasoning"])
  const inline = thinkBlock.exec(rawContent)
  if (inline !== null) {
    const inlineReasoning = nonEmpty(inline[1]?.trim())
    return { content: rawContent.slice(inline[0].length), reasoning: fieldReasoning ?? inlineReasoning }
  }
  return { content: rawContent, reasoning: fieldReasoning }
}
