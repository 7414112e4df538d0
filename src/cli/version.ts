import { readFileSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../PackageRoot.js"

// Read from package.json at run time so `vtree --version` can never drift from the published version.
export const version: string = (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version
