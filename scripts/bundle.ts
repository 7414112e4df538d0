// Bundles the CLI (src/main.ts) for dist/bin.js: ES modules split into chunks, so code only some
// commands need (the page reader's HTML stack is a third of the whole) sits in a chunk of its own that
// is read and compiled when a command first imports it, not at every start. Compiling the bundle is
// most of `vtree --help`'s time on Node 20, which has no compile cache.
import { build } from "esbuild"
import { rmSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outdir = `${root}dist/bundle`

// Chunk names carry content hashes: clear the previous build's so none are left behind.
rmSync(outdir, { recursive: true, force: true })
await build({
  // The page reader's extraction worker is loaded by URL (Reader.ts), so it is an entry of its own,
  // named as that URL expects.
  entryPoints: [
    { in: `${root}src/main.ts`, out: "main" },
    { in: `${root}src/layers/reader/ExtractWorker.ts`, out: "ExtractWorker" }
  ],
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir,
  outExtension: { ".js": ".mjs" },
  // Native or worker-spawning packages stay in node_modules, as in any install.
  external: ["better-sqlite3", "tesseract.js", "sharp"],
  // jsonc-parser's main entry is a UMD wrapper whose require calls esbuild cannot follow; its ES build
  // bundles like any other module.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: "warning",
  // Bundled CommonJS packages call require and read __dirname/__filename, which ES modules lack.
  banner: {
    js: [
      `import { createRequire as __vtreeRequire } from "node:module";`,
      `import { fileURLToPath as __vtreePath } from "node:url";`,
      `import { dirname as __vtreeDirname } from "node:path";`,
      `const require = __vtreeRequire(import.meta.url);`,
      `const __filename = __vtreePath(import.meta.url);`,
      `const __dirname = __vtreeDirname(__filename);`
    ].join(" ")
  }
})
