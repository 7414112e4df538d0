import { assert, describe, it } from "@effect/vitest"
import { admission, isLoopback, parseListen } from "../../../src/cli/mcp/HttpServe.js"

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

  it("on loopback, admits only local Hosts and Origins (DNS rebinding)", () => {
    const bound = { host: "127.0.0.1" }
    assert.isTrue(admission({ host: "127.0.0.1:8765" }, bound).ok)
    assert.isTrue(admission({ host: "localhost:8765", origin: "http://localhost:3000" }, bound).ok)
    assert.isFalse(admission({ host: "evil.example:8765" }, bound).ok)
    assert.isFalse(admission({ host: "127.0.0.1:8765", origin: "https://evil.example" }, bound).ok)
    assert.isFalse(admission({ host: "127.0.0.1:8765", origin: "null" }, bound).ok)
    assert.isFalse(admission({}, bound).ok)
  })

  it("on a public address, admits any Host but only its own or local Origins", () => {
    const bound = { host: "10.0.0.5" }
    assert.isTrue(admission({ host: "mcp.internal:8765" }, bound).ok)
    assert.isTrue(admission({ host: "10.0.0.5:8765", origin: "http://10.0.0.5:8765" }, bound).ok)
    assert.isFalse(admission({ host: "10.0.0.5:8765", origin: "https://evil.example" }, bound).ok)
  })
})
