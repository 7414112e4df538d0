// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4
// out, messages ending in NUL), for pages a test must act on: click, type, read a frame's DOM. No
// WebSocket and no driver package: one JSON message each way.
import { type ChildProcess, spawn } from "node:child_process"
import type { Readable, Writable } from "node:stream"
import { makeTempDir, removeTempDir } from "../TempDir.js"
import { chromiumBinary } from "./Chromium.js"

type Message = {
  readonly id?: number
  readonly method?: string
  readonly params?: any
  readonly result?: any
  readonly error?: { message: string }
  readonly sessionId?: string
}

export interface Cdp {
  readonly send: (method: string, params?: Record<string, unknown>, sessionId?: string) => Promise<any>
  /** Every event so far and from now on, as Chromium sent them. */
  readonly events: ReadonlyArray<Message>
  readonly close: () => Promise<void>
}

export const openChromium = (options: { readonly width: number; readonly height: number }): Cdp => {
  if (chromiumBinary === undefined) throw new Error("no chromium on PATH: install Debian's chromium (.ci/run does)")
  const profile = makeTempDir("chromium-cdp")
  // Sandboxed frames stay in their page's process, so one session sees every frame's execution context.
  const child: ChildProcess = spawn(chromiumBinary, [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-site-isolation-trials",
    "--disable-features=IsolateSandboxedIframes,site-per-process",
    `--window-size=${options.width},${options.height}`,
    `--user-data-dir=${profile}`,
    "--remote-debugging-pipe",
    "about:blank"
  ], { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] })
  const input = child.stdio[3] as Writable
  const output = child.stdio[4] as Readable
  const events: Array<Message> = []
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>()
  let nextId = 1
  let buffer = ""
  output.setEncoding("utf8")
  output.on("data", (chunk: string) => {
    buffer += chunk
    for (let end = buffer.indexOf("\0"); end >= 0; end = buffer.indexOf("\0")) {
      const message = JSON.parse(buffer.slice(0, end)) as Message
      buffer = buffer.slice(end + 1)
      const waiting = message.id === undefined ? undefined : pending.get(message.id)
      if (waiting === undefined) {
        events.push(message)
        continue
      }
      pending.delete(message.id!)
      if (message.error === undefined) waiting.resolve(message.result)
      else waiting.reject(new Error(message.error.message))
    }
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    events,
    send: (method, params = {}, sessionId) =>
      new Promise((resolve, reject) => {
        const id = nextId++
        pending.set(id, { resolve, reject })
        input.write(`${JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) })}\0`)
      }),
    close: async () => {
      child.kill()
      await exited
      removeTempDir(profile)
    }
  }
}

/** A real mouse click at page coordinates: press and release, as a person's. */
export const click = async (cdp: Cdp, sessionId: string, x: number, y: number): Promise<void> => {
  for (const type of ["mousePressed", "mouseReleased"]) {
    await cdp.send("Input.dispatchMouseEvent", { type, x, y, button: "left", clickCount: 1 }, sessionId)
  }
}

/** Checks `probe` every 100 ms until it is true, or fails after `timeoutMs` naming `what`. */
export const until = async (what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
