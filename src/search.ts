/**
 * `vtree/search`: the Search Hub for other Effect apps — the hub, its live providers, the URL-safety
 * check and the agent-tool wrappers. A separate entry point because the providers pull in an HTML
 * parser, Readability and an HTTP agent that the agent library alone never needs.
 *
 *   import { Search } from "vtree/search"
 */
export * as Search from "./api/Search.js"
