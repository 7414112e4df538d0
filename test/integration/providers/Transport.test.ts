import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { brotliCompressSync, createGzip, deflateRawSync, gzipSync } from "node:zlib"
import { BufferedResponse, transportFetch } from "../../../src/layers/openai/Transport.js"

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

const seen: Array<Seen> = []
let closedEarly = 0
let server: Server
let base = ""

const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void> = {
  "/json": (_req, res) => {
    res.setHeader("content-type", "application/json")
    res.setHeader("x-request-id", "req-1")
    res.setHeader("set-cookie", ["a=1", "b=2"])
    res.setHeader("x-multi", ["one", "two"])
    res.end(JSON.stringify({ ok: true, text: "héllo" }))
  },
  "/empty": (_req, res) => {
    res.statusCode = 204
    res.end()
  },
  "/teapot": (_req, res) => {
    res.statusCode = 418
    res.statusMessage = "I'm a teapot"
    res.end("short and stout")
  },
  "/not-json": (_req, res) => {
    res.setHeader("content-type", "application/json")
    res.end("{not json")
  },
  "/events": (_req, res) => {
    res.setHeader("content-type", "text/event-stream")
    res.write("data: one\n\n")
    setTimeout(() => res.end("data: two\n\n"), 20)
  },
  "/events-stall": (req, res) => {
    res.setHeader("content-type", "text/event-stream")
    res.write("data: one\n\n")
    req.socket.on("close", () => {
      closedEarly += 1
    })
  },
  "/stall": (req, _res) => {
    req.socket.on("close", () => {
      closedEarly += 1
    })
  },
  "/gzip": (req, res) => {
    const body = JSON.stringify({ compressed: "yes", padding: "x".repeat(2000) })
    if (!String(req.headers["accept-encoding"]).includes("gzip")) {
      res.end(body)
      return
    }
    res.setHeader("content-type", "application/json")
    res.setHeader("content-encoding", "gzip")
    res.end(gzipSync(body))
  },
  "/br-error": (_req, res) => {
    res.statusCode = 500
    res.setHeader("content-encoding", "br")
    res.end(brotliCompressSync("the model server fell over"))
  },
  "/deflate-raw": (_req, res) => {
    res.setHeader("content-encoding", "deflate")
    res.end(deflateRawSync("raw deflate, as some servers send it"))
  },
  "/gzip-events": (_req, res) => {
    res.setHeader("content-type", "text/event-stream")
    res.setHeader("content-encoding", "gzip")
    const gzip = createGzip()
    gzip.pipe(res)
    gzip.write("data: one\n\n")
    gzip.flush()
    setTimeout(() => gzip.end("data: two\n\n"), 20)
  },
  "/moved": (_req, res) => {
    res.statusCode = 307
    res.setHeader("location", "/json")
    res.end()
  },
  "/cut": (req, res) => {
    res.setHeader("content-type", "application/json")
    res.setHeader("content-length", "1000")
    res.write("{\"partial\":")
    setTimeout(() => req.socket.destroy(), 10)
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
      const route = routes[(req.url ?? "").split("?")[0]!]
      if (route === undefined) {
        res.statusCode = 404
        res.end("no such route")
      } else route(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe("transportFetch", () => {
  it("sends method, headers and body as given, and reads a JSON reply like fetch", async () => {
    const response = await transportFetch(`${base}/json`, {
      method: "post",
      headers: new Headers({ "content-type": "application/json", authorization: "Bearer k" }),
      body: JSON.stringify({ q: 1 })
    })
    const request = seen.at(-1)!
    expect(request.method).toBe("POST")
    expect(request.headers["authorization"]).toBe("Bearer k")
    expect(request.body).toBe("{\"q\":1}")
    expect(response).toBeInstanceOf(BufferedResponse)
    expect(response.ok).toBe(true)
    expect(response.status).toBe(200)
    expect(response.url).toBe(`${base}/json`)
    expect(response.headers.get("X-Request-Id")).toBe("req-1")
    expect(response.headers.get("x-multi")).toBe("one, two")
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"])
    expect(response.headers.has("content-type")).toBe(true)
    const names = [...response.headers.keys()]
    expect(names).toEqual([...names].sort())
    expect(await response.json()).toEqual({ ok: true, text: "héllo" })
    expect(response.bodyUsed).toBe(true)
    await expect(response.text()).rejects.toThrow(TypeError)
  })

  it("accepts headers as a plain object or a list of pairs", async () => {
    await transportFetch(`${base}/json`, { headers: { "x-a": "1" } })
    expect(seen.at(-1)!.headers["x-a"]).toBe("1")
    await transportFetch(`${base}/json`, { headers: [["x-b", "2"]] })
    expect(seen.at(-1)!.headers["x-b"]).toBe("2")
  })

  it("a reply without a body (204) has a null body and reads as empty", async () => {
    const response = await transportFetch(`${base}/empty`)
    expect(response.status).toBe(204)
    expect(await response.text()).toBe("")
  })

  it("an error status is a response, not a rejection, with its status text", async () => {
    const response = await transportFetch(`${base}/teapot`)
    expect(response.ok).toBe(false)
    expect(response.status).toBe(418)
    expect(response.statusText).toBe("I'm a teapot")
    expect(await response.text()).toBe("short and stout")
  })

  it("malformed JSON rejects with a SyntaxError, as fetch's json() does", async () => {
    const response = await transportFetch(`${base}/not-json`)
    await expect(response.json()).rejects.toThrow(SyntaxError)
  })

  it("clone, arrayBuffer, blob and body behave as on a Response", async () => {
    const response = await transportFetch(`${base}/json`)
    const copy = response.clone()
    const blob = await copy.blob()
    expect(blob.type).toBe("application/json")
    expect(JSON.parse(await blob.text())).toEqual({ ok: true, text: "héllo" })
    const reader = response.body!.getReader()
    const chunks: Array<Uint8Array> = []
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
    }
    expect(JSON.parse(Buffer.concat(chunks).toString("utf8"))).toEqual({ ok: true, text: "héllo" })
    const again = await transportFetch(`${base}/json`)
    expect(new TextDecoder().decode(await again.arrayBuffer())).toContain("héllo")
  })

  it("a server-sent event stream is a streaming Response: the first event arrives before the reply ends", async () => {
    const response = await transportFetch(`${base}/events`)
    expect(response).toBeInstanceOf(Response)
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n")
    let rest = ""
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += new TextDecoder().decode(value)
    }
    expect(rest).toBe("data: two\n\n")
  })

  it("an abort rejects with an AbortError and closes the connection at the server", async () => {
    const controller = new AbortController()
    const pending = transportFetch(`${base}/stall`, { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 30))
    const before = closedEarly
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: "AbortError" })
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(closedEarly).toBe(before + 1)
  })

  it("asks for compressed replies as fetch does and decodes them, error replies included", async () => {
    const response = await transportFetch(`${base}/gzip`)
    expect(seen.at(-1)!.headers["accept-encoding"]).toContain("gzip")
    expect(response.headers.has("content-encoding")).toBe(false)
    expect(await response.json()).toMatchObject({ compressed: "yes" })
    const failed = await transportFetch(`${base}/br-error`)
    expect(failed.status).toBe(500)
    expect(await failed.text()).toBe("the model server fell over")
  })

  it("decodes raw deflate and a gzipped event stream", async () => {
    expect(await (await transportFetch(`${base}/deflate-raw`)).text()).toBe("raw deflate, as some servers send it")
    const events = await transportFetch(`${base}/gzip-events`)
    expect(events).toBeInstanceOf(Response)
    expect(await events.text()).toBe("data: one\n\ndata: two\n\n")
  })

  it("an accept-encoding the caller sets is sent as given", async () => {
    await transportFetch(`${base}/json`, { headers: { "Accept-Encoding": "identity" } })
    expect(seen.at(-1)!.headers["accept-encoding"]).toBe("identity")
  })

  it("follows a redirect as fetch does, keeping method and body on a 307", async () => {
    const response = await transportFetch(`${base}/moved`, { method: "POST", body: "{\"q\":2}" })
    expect(response.status).toBe(200)
    expect(seen.at(-1)!).toMatchObject({ method: "POST", url: "/json", body: "{\"q\":2}" })
    expect(await response.json()).toMatchObject({ ok: true })
  })

  it("an abort while a stream is being read ends the stream with an error and closes the connection", async () => {
    const controller = new AbortController()
    const response = await transportFetch(`${base}/events-stall`, { signal: controller.signal })
    const reader = response.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: one\n\n")
    const before = closedEarly
    const next = reader.read()
    controller.abort()
    await expect(next).rejects.toThrow()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(closedEarly).toBe(before + 1)
  })

  it("a connection cut in the middle of the body rejects the request", async () => {
    await expect(transportFetch(`${base}/cut`)).rejects.toThrow()
  })

  it("a body it does not send itself (FormData) goes through the global fetch unchanged", async () => {
    const form = new FormData()
    form.set("file", new Blob(["bytes"]), "frame.jpg")
    const response = await transportFetch(`${base}/json`, { method: "POST", body: form })
    expect(response).toBeInstanceOf(Response)
    expect(seen.at(-1)!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/)
    expect(seen.at(-1)!.body).toContain("bytes")
  })
})
