// external_search / external_read as agent tools over the Search Hub (`vtree infer --web-search`).
// The hub validates every request itself and always answers with its result-or-error JSON, so the
// tools pass the model's args through and show it the JSON: errors are text the agent can act on.
import { Effect } from "effect"
import type { SearchHub } from "../search/SearchHub.js"
import type { AgentTool } from "../tools/Dispatcher.js"

export const webSearchTools = (hub: SearchHub): ReadonlyArray<AgentTool> => [
  {
    name: "external_search",
    run: (args) => Effect.map(hub.search(args), (result) => ({ output: JSON.stringify(result) }))
  },
  {
    name: "external_read",
    run: (args) => Effect.map(hub.read(args), (result) => ({ output: JSON.stringify(result) }))
  }
]
