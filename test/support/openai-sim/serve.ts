// openai-sim as its own process, for benchmarks that must not share a CPU thread with the client:
//   node --import tsx test/support/openai-sim/serve.ts [DELAY_MS]
// Every chat model answers "ok" after DELAY_MS; the first line on stdout is the base URL. It stops when
// its stdin closes, so it never outlives the process that started it.
import * as OpenAiSim from "./index.js"

const delayMs = Number(process.argv[2] ?? "0")
const sim = await OpenAiSim.start({ chat: { "*": () => ({ content: "ok", ...(delayMs > 0 ? { delayMs } : {}) }) } })
process.stdout.write(`${sim.url}\n`)
process.stdin.resume()
process.stdin.on("end", () => {
  void sim.close().then(() => process.exit(0))
})
