// Fails when src/ has an import cycle, type-only imports included: a type cycle does not change module
// initialisation order, but it still ties two modules into one, and a type shared by both belongs below them.
// Folders are checked too: a folder that imports another which imports it back is one family split in two,
// or shared code that should sit below both.
import madge from "madge"

const result = await madge("src", {
  fileExtensions: ["ts"],
  tsConfig: "tsconfig.json",
  detectiveOptions: { ts: { skipTypeImports: false, skipAsyncImports: true } }
})
const cycles = result.circular()
if (cycles.length > 0) {
  console.error(`${cycles.length} import cycle(s) in src/:`)
  for (const cycle of cycles) console.error(`  ${cycle.join(" → ")}`)
  process.exit(1)
}

// A module's folder (programs/x and layers/x count as folders of their own; files at src/'s root stand alone).
const folderOf = (file) => {
  const parts = file.split("/")
  if (parts.length === 1) return file
  return parts.slice(0, ["programs", "layers"].includes(parts[0]) && parts.length > 2 ? 2 : 1).join("/")
}
const graph = new Map()
for (const [file, deps] of Object.entries(result.obj())) {
  for (const dep of deps) {
    const [from, to] = [folderOf(file), folderOf(dep)]
    if (from === to) continue
    if (!graph.has(from)) graph.set(from, new Map())
    if (!graph.get(from).has(to)) graph.get(from).set(to, `${file} → ${dep}`)
  }
}
// Depth-first search for a back edge; the path on the stack is the cycle.
const folderCycles = []
const state = new Map()
const visit = (node, stack) => {
  state.set(node, "open")
  for (const [next, edge] of graph.get(node) ?? []) {
    if (state.get(next) === "open") {
      const from = stack.findIndex((step) => step.node === next)
      folderCycles.push([...stack.slice(from + 1).map((step) => step.edge), edge])
    } else if (!state.has(next)) visit(next, [...stack, { node: next, edge }])
  }
  state.set(node, "done")
}
for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node, [{ node, edge: null }])
if (folderCycles.length > 0) {
  console.error(`${folderCycles.length} folder cycle(s) in src/ (one import each way shown):`)
  for (const cycle of folderCycles) console.error(`  ${cycle.join("; ")}`)
  process.exit(1)
}
console.log(`No import cycles in src/ (${Object.keys(result.obj()).length} modules), none between its folders.`)
