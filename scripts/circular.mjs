// Fails when src/ has an import cycle. Type-only imports are skipped: they vanish at compile time, so only
// cycles that exist at run time (module initialisation order) are reported, as in Effect's own scripts/circular.mjs.
import madge from "madge"

const result = await madge("src", {
  fileExtensions: ["ts"],
  tsConfig: "tsconfig.json",
  detectiveOptions: { ts: { skipTypeImports: true, skipAsyncImports: true } }
})
const cycles = result.circular()
if (cycles.length > 0) {
  console.error(`${cycles.length} import cycle(s) in src/:`)
  for (const cycle of cycles) console.error(`  ${cycle.join(" → ")}`)
  process.exit(1)
}
console.log(`No import cycles in src/ (${Object.keys(result.obj()).length} modules).`)
