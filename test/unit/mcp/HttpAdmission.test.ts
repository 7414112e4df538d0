import { assert, describe, it } from "@effect/vitest"
import { admission, isLoopback, makeBacklogGuard, parseListen } from "../../../src/cli/mcp/HttpServe.js"

describe("mcp --http address and admission", () => {
  it("reads HOST:PORT, :PORT and PORT (loopback by default), and refuses the rest", () => {
    assert.deepStrictEqual(parseListen("0.0.0.0:8765"), { host: "0.0.0.0", port: 8765 })
    assert.deepStrictEqual(parseListen(":8765"), { host: "127.0.0.1", port: 8765 })
    assert.deepStrictEqual(parseListen("8765"), { host: "127.0.0.1", port: 8765 })
    assert.deepStrictEqual(parseListen("[::1]:9000"), { host: "::1", port: 9000 })
    assert.isUndefined(parseListen("host:99999"))
    assert.isUndefined(parseListen("http://x:1"))
    assert.isTrue(isLoopback("127.0.0.1") && isLoopback("::1") && isLoopback("localhost"))
    assert.isFalse(isLoopback("0.0.0.0"))
  })

  it("on loopback, admits only local Hosts and Origins of its own port (DNS rebinding)", () => {
    const bound = { host: "127.0.0.1", port: 8765 }
    assert.isTrue(admission({ host: "127.0.0.1:8765" }, bound).ok)
    assert.isTrue(admission({ host: "localhost:8765", origin: "http://localhost:8765" }, bound).ok)
    // Another local app's page is another origin: the port counts.
    assert.isFalse(admission({ host: "localhost:8765", origin: "http://localhost:3000" }, bound).ok)
    assert.isFalse(admission({ host: "localhost:8765", origin: "http://localhost" }, bound).ok)
    assert.isFalse(admission({ host: "evil.example:8765" }, bound).ok)
    assert.isFalse(admission({ host: "127.0.0.1:8765", origin: "https://evil.example" }, bound).ok)
    assert.isFalse(admission({ host: "127.0.0.1:8765", origin: "null" }, bound).ok)
    assert.isFalse(admission({}, bound).ok)
  })

  it("on a public address, admits any Host but only its own or local Origins", () => {
    const bound = { host: "10.0.0.5", port: 8765 }
    assert.isTrue(admission({ host: "mcp.internal:8765" }, bound).ok)
    assert.isTrue(admission({ host: "10.0.0.5:8765", origin: "http://10.0.0.5:8765" }, bound).ok)
    assert.isFalse(admission({ host: "10.0.0.5:8765", origin: "https://evil.example" }, bound).ok)
    assert.isFalse(admission({ host: "10.0.0.5:8765", origin: "http://10.0.0.5:9999" }, bound).ok)
  })
})

describe("mcp --http reply backlog", () => {
  /** A reply whose client reads nothing: what it was written stays unread. */
  const reply = () => {
    const fake = {
      writableLength: 0,
      destroyed: false,
      destroy: () => {
        fake.destroyed = true
      }
    }
    return fake
  }

  it("cuts a connection past its own limit, and the largest one once all together pass the total", () => {
    const guard = makeBacklogGuard({ perConnection: 100, total: 250 })
    const greedy = reply()
    greedy.writableLength = 101
    guard.account(greedy)
    assert.isTrue(greedy.destroyed)
    assert.strictEqual(guard.total(), 0)
    const readers = Array.from({ length: 4 }, reply)
    readers.forEach((r, i) => {
      r.writableLength = 60 + i
      guard.account(r)
    })
    // 60 + 61 + 62 + 63 = 246 ≤ 250; then a fifth pushes past it: the largest goes first.
    const fifth = reply()
    fifth.writableLength = 50
    guard.account(fifth)
    assert.deepStrictEqual(readers.map((r) => r.destroyed), [false, false, false, true])
    assert.isAtMost(guard.total(), 250)
    readers[0]!.writableLength = 0
    guard.account(readers[0]!)
    assert.strictEqual(guard.total(), 61 + 62 + 50)
  })
})
