#!/usr/bin/env node
// Starts the CLI: `npm run build` bundles it (src/main.ts) into dist/bundle (scripts/bundle.ts): a main
// module plus chunks that load only when a command needs them. Node ≥ 22.1 can also keep the compiled
// code between runs; older Node has no such cache and compiles what it loads each time.
import module from "node:module"

// @types/node 20 predates enableCompileCache.
const { enableCompileCache } = module as typeof module & { readonly enableCompileCache?: () => unknown }
enableCompileCache?.()
// A URL rather than a literal path: tsc compiles this file before the bundle exists.
await import(new URL("./bundle/main.mjs", import.meta.url).href)
