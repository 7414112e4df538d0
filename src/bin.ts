#!/usr/bin/env node
// Starts the CLI: `npm run build` bundles it (src/main.ts) into the one file dist/vtree.cjs, which loads
// faster than the many modules it is made of. Node ≥ 22.1 can also keep the compiled code between runs;
// older Node has no such cache and simply compiles the bundle each time.
import module from "node:module"

// @types/node 20 predates enableCompileCache.
const { enableCompileCache } = module as typeof module & { readonly enableCompileCache?: () => unknown }
enableCompileCache?.()
module.createRequire(import.meta.url)("./vtree.cjs")
