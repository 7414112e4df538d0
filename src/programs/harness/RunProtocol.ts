import type { AgentProtocol } from "../agent/AgentLoop.js"

/**
 * The agent protocol a run used, from its stored config: `tools` when it says so; runs stored before
 * the protocol was recorded could only use `json`.
 */
export const runProtocol = (config: unknown): AgentProtocol =>
  typeof config === "object" && config !== null && "protocol" in config && config.protocol === "tools" ? "tools" : "json"
