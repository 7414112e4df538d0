// The page reader's extraction, run in a worker thread. Readability, linkedom and turndown are
// synchronous: on the main thread a hostile page would stop the event loop — timeouts, heartbeats and
// Ctrl-C included — for as long as they take. Here the caller can end them by terminating the thread.
// One page per message; the thread serves pages one after another.
import { parentPort } from "node:worker_threads"
import { toReadable } from "./ContentExtractor.js"

type Input = Parameters<typeof toReadable>[0]

parentPort?.on("message", (input: Input) => {
  try {
    parentPort?.postMessage({ ok: toReadable(input) })
  } catch (error) {
    parentPort?.postMessage({ failed: error instanceof Error ? error.message : String(error) })
  }
})
