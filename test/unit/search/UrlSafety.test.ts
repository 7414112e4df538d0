import { assert, describe, it } from "@effect/vitest"
import { blockedAddressTextReason, checkUrl, isInternalName, parseAllowRanges } from "../../../src/domain/UrlSafety.js"

// Each entry: a URL an attacker might hand the reader, and why it must be refused.
const blockedCorpus: ReadonlyArray<readonly [string, string]> = [
  // IPv4 loopback in every spelling WHATWG URL accepts
  ["http://127.0.0.1:8080/", "loopback"],
  ["http://127.255.255.254/", "loopback, top of 127/8"],
  ["http://2130706433/", "decimal"],
  ["http://0x7f000001/", "hex"],
  ["http://017700000001/", "octal"],
  ["http://0x7f.0.0.1/", "hex first octet"],
  ["http://0177.0.0.1/", "octal first octet"],
  ["http://127.1/", "short form a.d"],
  ["http://127.0.1/", "short form a.b.d"],
  ["http://%31%32%37.0.0.1/", "percent-encoded host"],
  ["http://①②⑦.0.0.1/", "full-width digits folded by IDNA"],
  // unspecified
  ["http://0/", "zero"],
  ["http://0.0.0.0/", "0.0.0.0"],
  ["http://0.0.0.0:80/", "0.0.0.0 with port"],
  ["http://[::]/", "IPv6 unspecified"],
  ["http://[::1]/", "IPv6 loopback"],
  ["http://[0:0:0:0:0:0:0:1]/", "IPv6 loopback long form"],
  // IPv4-mapped, NAT64, 6to4, Teredo, IPv4-compatible forms of blocked IPv4
  ["http://[::ffff:127.0.0.1]/", "mapped loopback"],
  ["http://[::ffff:7f00:1]/", "mapped loopback, hex"],
  ["http://[::ffff:10.0.0.1]/", "mapped private"],
  ["http://[::ffff:169.254.169.254]/", "mapped metadata"],
  ["http://[::ffff:0.0.0.0]/", "mapped unspecified"],
  ["http://[64:ff9b::127.0.0.1]/", "NAT64 loopback"],
  ["http://[64:ff9b::a9fe:a9fe]/", "NAT64 metadata"],
  ["http://[64:ff9b::10.1.1.1]/", "NAT64 private"],
  ["http://[64:ff9b:1::a00:1]/", "local-use NAT64"],
  ["http://[2002:7f00:1::]/", "6to4 loopback"],
  ["http://[2002:a9fe:a9fe::1]/", "6to4 metadata"],
  ["http://[2002:c0a8:101::]/", "6to4 192.168.1.1"],
  ["http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Teredo client 127.0.0.1"],
  ["http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/", "Teredo client 10.0.0.1"],
  ["http://[::127.0.0.1]/", "IPv4-compatible"],
  // private, shared, link-local, benchmark, multicast, reserved
  ["http://10.0.0.1/", "10/8"],
  ["http://10.255.255.255/", "10/8 top"],
  ["http://172.16.0.1/", "172.16/12"],
  ["http://172.31.255.254/", "172.16/12 top"],
  ["http://192.168.0.1/", "192.168/16"],
  ["http://192.168.255.255/", "192.168/16 top"],
  ["http://100.64.0.1/", "shared 100.64/10"],
  ["http://100.127.255.254/", "shared top"],
  ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
  ["http://169.254.0.1/", "link-local"],
  ["http://[fe80::1]/", "IPv6 link-local"],
  ["http://198.18.0.1/", "benchmark 198.18/15"],
  ["http://198.19.255.255/", "benchmark top"],
  ["http://[2001:2::1]/", "IPv6 benchmark"],
  ["http://224.0.0.1/", "multicast"],
  ["http://239.255.255.250/", "multicast SSDP"],
  ["http://[ff02::1]/", "IPv6 multicast"],
  ["http://240.0.0.1/", "reserved 240/4"],
  ["http://255.255.255.255/", "broadcast"],
  ["http://192.0.2.1/", "TEST-NET-1"],
  ["http://198.51.100.7/", "TEST-NET-2"],
  ["http://203.0.113.5/", "TEST-NET-3"],
  ["http://192.0.0.8/", "IETF protocol assignments"],
  ["http://[2001:db8::1]/", "IPv6 documentation"],
  ["http://[fc00::1]/", "unique local"],
  ["http://[fd12:3456::1]/", "unique local fd"],
  ["http://[fec0::1]/", "site-local"],
  // internal names
  ["http://localhost/", "localhost"],
  ["http://LOCALHOST./", "localhost, upper case, trailing dot"],
  ["http://api.localhost/", "*.localhost"],
  ["http://printer.local/", "*.local"],
  ["http://metadata.google.internal/", "*.internal"],
  ["http://kubernetes.default.svc.cluster.local/", "*.svc.cluster.local"],
  ["http://intranet/", "single-label name"],
  // schemes
  ["file:///etc/passwd", "file"],
  ["ftp://example.com/", "ftp"],
  ["gopher://example.com:70/", "gopher"],
  ["javascript:alert(1)", "javascript"],
  ["data:text/html,hi", "data"],
  ["ws://example.com/", "websocket"],
  // userinfo tricks
  ["http://example.com@127.0.0.1/", "public name as userinfo, loopback host"],
  ["http://user:pass@example.com/", "credentials"],
  ["http://127.0.0.1#@example.com/", "fragment trick"],
  ["not a url", "not a URL"]
]

const publicCorpus = [
  "http://93.184.216.34/",
  "http://8.8.8.8/dns",
  "https://example.com/page?a=1",
  "https://en.wikipedia.org/wiki/Video",
  "https://[2606:4700:4700::1111]/",
  "https://[2001:4860:4860::8888]/",
  "http://[::ffff:8.8.8.8]/",
  "http://[64:ff9b::808:808]/",
  "http://[2002:808:808::1]/"
]

describe("URL safety", () => {
  it("the blocked corpus has at least 60 cases", () => {
    assert.isAtLeast(blockedCorpus.length, 60)
  })

  for (const [url, why] of blockedCorpus) {
    it(`blocks ${why}: ${url}`, () => {
      const check = checkUrl(url)
      assert.isFalse(check.ok, `${url} should be blocked`)
    })
  }

  for (const url of publicCorpus) {
    it(`lets public unicast through: ${url}`, () => {
      const check = checkUrl(url)
      assert.isTrue(check.ok, check.ok ? "" : check.reason)
    })
  }

  it("names the rule that blocked a URL", () => {
    const check = checkUrl("http://169.254.169.254/")
    assert.isFalse(check.ok)
    if (!check.ok) assert.include(check.reason, "link-local")
  })

  it("checks resolver answers in both families and rejects non-addresses", () => {
    assert.isNull(blockedAddressTextReason("93.184.216.34"))
    assert.isNull(blockedAddressTextReason("2606:4700::1"))
    assert.strictEqual(blockedAddressTextReason("10.0.0.7"), "a private (RFC 1918) address")
    assert.strictEqual(
      blockedAddressTextReason("::ffff:192.168.1.1"),
      "an IPv6 ipv4Mapped form of 192.168.1.1, a private (RFC 1918) address"
    )
    assert.strictEqual(blockedAddressTextReason("example.com"), "\"example.com\" is not an IP address")
  })

  it("an explicit allow-range opens that range only", () => {
    const parsed = parseAllowRanges(["127.0.0.0/8", " "])
    assert.isTrue("ranges" in parsed)
    if (!("ranges" in parsed)) return
    const policy = { allowRanges: parsed.ranges }
    assert.isTrue(checkUrl("http://127.0.0.1:3000/", policy).ok)
    assert.isFalse(checkUrl("http://10.0.0.1/", policy).ok)
    assert.isFalse(checkUrl("http://[::1]/", policy).ok)
    // Names are judged by name first: an allow-range does not make localhost acceptable.
    assert.isFalse(checkUrl("http://localhost:3000/", policy).ok)
  })

  it("rejects a malformed allow-range entry by name", () => {
    const parsed = parseAllowRanges(["127.0.0.0/8", "10.0.0.0/33"])
    assert.deepStrictEqual(parsed, { error: "\"10.0.0.0/33\" is not a CIDR range like 127.0.0.0/8 or fd00::/8" })
  })

  it("treats only public-looking dotted names as external", () => {
    assert.isTrue(isInternalName("db"))
    assert.isTrue(isInternalName("x.home.arpa"))
    assert.isFalse(isInternalName("example.org"))
  })
})
