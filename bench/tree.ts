// Tree loading and retrieval at the scale of a 10-hour video (~20,500 nodes).
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { packVectors } from "../src/programs/tree/EmbeddingIndex.js"
import {
  buildRetrieval,
  embeddingNodeScores,
  searchBm25,
  searchEmbedding,
  searchHybrid,
  topIndices
} from "../src/programs/tree/Retrieval.js"
import { decodeTreeText } from "../src/programs/tree/TreeDecoder.js"
import { loadTreeEnvironment } from "../src/programs/tree/TreeLoader.js"
import { fillerWords, seededRandom, syntheticTree, writeTree } from "../test/support/trees/SyntheticTree.js"
import type { BenchModule } from "./run.js"
import { median, percentile } from "./stats.js"

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`

const time = <A>(f: () => A): [A, number] => {
  const start = performance.now()
  const value = f()
  return [value, performance.now() - start]
}
const timeAsync = async <A>(f: () => Promise<A>): Promise<[A, number]> => {
  const start = performance.now()
  const value = await f()
  return [value, performance.now() - start]
}

const dimensions = 768
const queries = 50

const run = async (): Promise<string> => {
  // 120 scenes × 10 events × 14–18 frames (16 on average): 120 + 1,200 + 19,200 nodes, 36,000 s.
  const tree = syntheticTree({
    videoId: "BENCH",
    scenes: 120,
    eventsPerScene: 10,
    framesPerEvent: (scene, event) => 14 + ((scene + event) % 5),
    sceneSeconds: 300,
    seed: 2024
  })
  const root = mkdtempSync(join(tmpdir(), "vtree-bench-tree-"))
  // The loader requires the folder to be named after the videoID.
  const dir = join(root, "BENCH")
  try {
    writeTree(dir, tree, { frames: false })
    const load = () => Effect.runPromise(loadTreeEnvironment(dir).pipe(Effect.provide(NodeContext.layer)))
    await load() // warm-up: module JIT and the OS file cache
    const loads: Array<number> = []
    let env = await load()
    for (let i = 0; i < 5; i++) {
      const [loaded, took] = await timeAsync(load)
      env = loaded
      loads.push(took)
    }
    const index = env.index
    const treeText = JSON.stringify(tree)
    const decodeTimes = Array.from({ length: 5 }, () => time(() => decodeTreeText("tree.json", treeText))[1])
    const [retrieval, indexTime] = time(() => buildRetrieval(index))
    const counts = [1, 2, 3].map((level) => [...index.nodes.values()].filter((node) => node.level === level).length)

    const random = seededRandom(99)
    const queryTexts = Array.from({ length: queries }, () => fillerWords(random, 3 + Math.floor(random() * 4)))
    for (const query of queryTexts.slice(0, 5)) searchBm25(retrieval, query)
    const bm25Times = queryTexts.map((query) => time(() => searchBm25(retrieval, query))[1])

    // Random unit vectors stand in for model embeddings: the search cost does not depend on their values.
    const vectorCount = retrieval.chunkTexts.length
    const vectors = Array.from(
      { length: vectorCount },
      () => Float32Array.from({ length: dimensions }, () => random() - 0.5)
    )
    const matrix = packVectors(vectors)!
    const queryVectors = Array.from(
      { length: queries },
      () => Float32Array.from({ length: dimensions }, () => random() - 0.5)
    )
    for (const vector of queryVectors.slice(0, 5)) searchEmbedding(retrieval, matrix, vector)
    const embeddingTimes = queryVectors.map((vector) => time(() => searchEmbedding(retrieval, matrix, vector))[1])
    // The ranking step alone, against what plain sort/slice would cost on the same node scores.
    const nodeScoreSets = queryVectors.map((vector) => embeddingNodeScores(retrieval, matrix, vector))
    const topKTimes = nodeScoreSets.map((scores) => time(() => topIndices(scores, 32))[1])
    const sortTimes = nodeScoreSets.map((scores) =>
      time(() => Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, 32))[1]
    )
    const hybridTimes = queryVectors.map((vector, i) =>
      time(() => searchHybrid(retrieval, matrix, queryTexts[i]!, vector))[1]
    )

    // The floor: one plain pass reading every float of the matrix once (a sum), the least any exact
    // search over it must do.
    const data = matrix.data
    let sink = 0
    const floorPass = () => {
      let sum = 0
      for (let i = 0; i < data.length; i++) sum += data[i]!
      sink += sum
    }
    for (let i = 0; i < 5; i++) floorPass()
    const floorTimes = Array.from({ length: queries }, () => time(floorPass)[1])
    if (Number.isNaN(sink)) throw new Error("unreachable: keeps the floor loop from being optimized away")

    const load50 = median(loads)
    const bm25 = median(bm25Times)
    const embedding = median(embeddingTimes)
    const floor = median(floorTimes)
    const megabytes = (data.byteLength / 1e6).toFixed(1)
    const verdict = (value: number, target: number) => (value <= target ? "meets" : "MISSES")
    return [
      `Synthetic tree: ${counts[0]} L1 × ${counts[1]} L2 × ${counts[2]} L3 = ${
        index.nodes.size.toLocaleString("en")
      } nodes ` +
      `(36,000 s ≈ 10 h of video), tree.json ${(JSON.stringify(tree).length / 1e6).toFixed(1)} MB, ` +
      `${
        vectorCount.toLocaleString("en")
      } retrieval chunks. Built by \`test/support/trees/SyntheticTree.ts\` (seeded).`,
      "",
      "| figure | median | p90 | target | |",
      "|---|---|---|---|---|",
      `| load: read + JSON.parse + Schema decode of every node + structural checks + BM25 index (\`loadTreeEnvironment\`, 5 runs after a warm-up) | ${
        ms(load50)
      } | ${ms(Math.max(...loads))} (max) | ≤ 1 s | ${verdict(load50, 1000)} |`,
      `| of which JSON.parse + Schema decode + structural checks (\`decodeTreeText\`, 5 runs) | ${
        ms(median(decodeTimes))
      } | ${ms(Math.max(...decodeTimes))} (max) | | |`,
      `| of which BM25 + chunking alone (\`buildRetrieval\`, 1 run) | ${ms(indexTime)} | | | |`,
      `| BM25 query (\`searchBm25\`, k = 5, ${queries} queries of 3–6 words) | ${ms(bm25)} | ${
        ms(percentile(bm25Times, 0.9))
      } | ≤ 20 ms | ${verdict(bm25, 20)} |`,
      `| embedding query, ${
        vectorCount.toLocaleString("en")
      } × ${dimensions} float32 (\`searchEmbedding\`: dot products, best chunk per node, top-k, de-dup) | ${
        ms(embedding)
      } | ${ms(percentile(embeddingTimes, 0.9))} | ≤ 1.0× floor | ${verdict(embedding / floor, 1)} |`,
      `| of which top-32 of the ${
        index.nodes.size.toLocaleString("en")
      } node scores (\`topIndices\`: one pass, short sorted list) | ${ms(median(topKTimes))} | ${
        ms(percentile(topKTimes, 0.9))
      } | | |`,
      `| the same by a full sort of the node positions, then slice | ${ms(median(sortTimes))} | ${
        ms(percentile(sortTimes, 0.9))
      } | | |`,
      `| floor: one plain pass summing the same ${megabytes} MB of floats | ${ms(floor)} | ${
        ms(percentile(floorTimes, 0.9))
      } | | |`,
      `| hybrid query (BM25 + embedding + reciprocal rank fusion) | ${ms(median(hybridTimes))} | ${
        ms(percentile(hybridTimes, 0.9))
      } | | |`,
      "",
      `Embedding query / floor = **${
        (embedding / floor).toFixed(2)
      }×**. The search reads the matrix once, as the floor does; ` +
      "its dot products keep four independent sums, so it is bound by memory reads, while the floor's single running sum " +
      "waits on each add (hence a ratio that can fall below 1). Per-node max, top-k and de-dup add about a millisecond; a full sort of the node scores would add the figure in its row. " +
      `Times are \`performance.now()\` around each call in one process (\`npx tsx bench/run.ts tree\`), medians after 5 warm-up calls; ` +
      `1-minute load average during the run: ${
        loadavg()[0]!.toFixed(1)
      } on ${cpus().length} cores (other work shares this machine).`
    ].join("\n")
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const bench: BenchModule = { title: "Tree: load, BM25 and embedding search (20,520 nodes)", run }
export default bench
