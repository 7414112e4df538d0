/**
 * The composition root: every Layer a command runs with, built from configuration (src/config), one module per
 * command or area in `composition/`, and this module the one place commands take them from. Each command takes
 * the pieces it needs with `Command.provide`, so each reads only its own settings: `tree search` the embedding
 * endpoint alone, `ocr` the OCR engine alone, `report` and `export` no provider at all. Nothing below the CLI
 * picks an adapter.
 *
 *   import { Build, Media, Output } from "./Composition.js"
 *   Command.provide((args) => Layer.mergeAll(Media.ffmpeg, Output.quiet, Build.providers(args.concurrency)))
 */

// ---- Commands ----------------------------------------------------------------------------------------
export * as Build from "./composition/Build.js"
export * as Doctor from "./composition/Doctor.js"
export * as Infer from "./composition/Infer.js"
export * as Mcp from "./composition/Mcp.js"
export * as Ocr from "./composition/Ocr.js"
export * as Tree from "./composition/Tree.js"

// ---- Shared by several -------------------------------------------------------------------------------
export * as Media from "./composition/Media.js"
export * as Output from "./composition/Output.js"
export * as Stores from "./composition/Stores.js"
