import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { packageRoot } from "../PackageRoot.js"

// Read from package.json at run time so `vtree --version` can never drift from the published version.
export const version: string = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.String })))(
  readFileSync(join(packageRoot(), "package.json"), "utf8")
).version
