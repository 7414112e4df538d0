/**
 * ocr-sim: a local stand-in for a MonkeyOCR server (`GET /health`, `POST /ocr/text` with a multipart
 * `file` field, replying `{success, content, message}`), for tests of the MonkeyOCR layer.
 *
 *   const ocr = await start({ reply: (file) => ({ success: true, content: `text of ${file.name}` }) })
 *   ocr.url; ocr.requests; await ocr.close()
 */
import { createServer } from "node:http"
import type { AddressInfo, Socket } from "node:net"

export interface OcrFile {
  readonly name: string
  readonly size: number
}

export type OcrSimReply =
  | { readonly success: boolean; readonly content?: string; readonly message?: string }
  | { readonly status: number }
  | { readonly drop: true }
  /** 200, then a body that never ends: written as fast as the client reads, until it closes. */
  | { readonly endless: true }

export interface OcrSimOptions {
  /** Whether `GET /health` answers 200 (default) or 503. */
  readonly healthy?: boolean
  /** Default: success with "text of <file name>". */
  readonly reply?: (file: OcrFile) => OcrSimReply
}

export interface OcrSim {
  readonly url: string
  /** The file names recognized (or attempted), in arrival order. */
  readonly requests: ReadonlyArray<OcrFile>
  readonly healthChecks: number
  readonly close: () => Promise<void>
}

export const start = async (options: OcrSimOptions = {}): Promise<OcrSim> => {
  const requests: Array<OcrFile> = []
  const sockets = new Set<Socket>()
  let healthChecks = 0
  const server = createServer(async (req, res) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    if (req.method === "GET" && req.url === "/health") {
      healthChecks += 1
      return options.healthy === false ? json(503, { status: "unhealthy" }) : json(200, { status: "healthy" })
    }
    if (req.method !== "POST" || req.url !== "/ocr/text") return json(404, { detail: "Not Found" })
    // The platform Request parses multipart exactly as a real server framework would.
    const form = await new Request("http://ocr-sim/ocr/text", {
      method: "POST",
      headers: { "content-type": req.headers["content-type"] ?? "" },
      body: Buffer.concat(chunks)
    }).formData()
    const file = form.get("file")
    if (file === null || typeof file === "string") return json(422, { detail: "field file is required" })
    const entry = { name: file.name, size: file.size }
    requests.push(entry)
    const reply = options.reply?.(entry) ?? { success: true, content: `text of ${entry.name}` }
    if ("drop" in reply) return void req.socket.destroy()
    if ("endless" in reply) {
      res.writeHead(200, { "content-type": "application/json" })
      const piece = " ".repeat(64 * 1024)
      // Bounded by the client: the loop ends when it closes the connection, and waits while it does not read.
      const pump = () => {
        while (!res.destroyed && res.write(piece));
        if (!res.destroyed) res.once("drain", pump)
      }
      return pump()
    }
    if ("status" in reply) return json(reply.status, { detail: "injected failure" })
    return json(200, {
      success: reply.success,
      task_type: "text",
      content: reply.content ?? null,
      message: reply.message ?? null
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get healthChecks() {
      return healthChecks
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** A URL nothing listens on: a port that was just released. */
export const deadUrl = async (): Promise<string> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}
