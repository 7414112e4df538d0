import { createRequire } from "node:module"

// Read from package.json at run time so `vtree --version` can never drift from the published version.
const require = createRequire(import.meta.url)
export const version: string = (require("../../package.json") as { version: string }).version
