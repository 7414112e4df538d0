// A loopback web server for `vtree infer --web-search` through the built CLI: the test decides, request
// by request, what each page is (and may change it while the run goes on): a page, or a response that
// sends its headers and never finishes.
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export type PageReply = { readonly html: string } | { readonly stall: true }

export interface PageServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** The path of every request, in order of arrival. */
  readonly requested: ReadonlyArray<string>
  /** The paths whose page was sent whole (its last byte handed to the socket). */
  readonly delivered: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

export const startPageServer = async (reply: (path: string) => PageReply): Promise<PageServer> => {
  const requested: Array<string> = []
  const delivered: Array<string> = []
  const stalled = new Set<ServerResponse>()
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://page.invalid").pathname
    requested.push(path)
    const answer = reply(path)
    if ("stall" in answer) {
      // Headers and the start of a body, then nothing: the download never ends.
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.write("<html><body><p>the rest of this page never comes")
      stalled.add(response)
      return
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(answer.html, () => delivered.push(path))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requested,
    delivered,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of stalled) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
