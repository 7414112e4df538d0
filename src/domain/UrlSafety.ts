import ipaddr from "ipaddr.js"

/**
 * The URL-safety rules of the Search Hub reader (public http(s) addresses only, never this machine or
 * its network), as plain functions: the fetcher calls
 * them once per hop and again inside the socket's DNS lookup, so they must be cheap and total.
 */

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6
export type Cidr = [IpAddress, number]

export interface UrlPolicy {
  /** Ranges reachable despite the rules: only tests and deliberate intranet setups set these. */
  readonly allowRanges: ReadonlyArray<Cidr>
}

export const defaultPolicy: UrlPolicy = { allowRanges: [] }

/** Parses `a.b.c.d/n` and `x::/n` entries; the error names the bad entry. */
export const parseAllowRanges = (entries: ReadonlyArray<string>): { ranges: Array<Cidr> } | { error: string } => {
  const ranges: Array<Cidr> = []
  for (const raw of entries) {
    const entry = raw.trim()
    if (entry === "") continue
    try {
      ranges.push(ipaddr.parseCIDR(entry))
    } catch {
      return { error: `"${entry}" is not a CIDR range like 127.0.0.0/8 or fd00::/8` }
    }
  }
  return { ranges }
}

const inAllowRanges = (address: IpAddress, policy: UrlPolicy): boolean =>
  policy.allowRanges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits))

const ipv4FromBytes = (bytes: ReadonlyArray<number>): ipaddr.IPv4 => new ipaddr.IPv4([...bytes])

/** The IPv4 address an IPv6 transition form carries, or null when it carries none. */
const embeddedIpv4 = (address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null => {
  const bytes = address.toByteArray()
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
      return ipv4FromBytes(bytes.slice(12, 16))
    case "rfc6052":
      // 64:ff9b::/96 embeds the address in the last 32 bits; the local-use 64:ff9b:1::/48 may embed it anywhere.
      return address.match(ipaddr.IPv6.parse("64:ff9b::"), 96) ? ipv4FromBytes(bytes.slice(12, 16)) : null
    case "6to4":
      return ipv4FromBytes(bytes.slice(2, 6))
    case "teredo":
      // RFC 4380: the client's public address is stored with every bit flipped.
      return ipv4FromBytes(bytes.slice(12, 16).map((b) => b ^ 0xff))
    default:
      return null
  }
}

const describeV4: Record<string, string> = {
  unspecified: "the unspecified network 0.0.0.0/8",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address (cloud metadata lives here)",
  loopback: "a loopback address",
  carrierGradeNat: "the shared address space 100.64.0.0/10",
  private: "a private (RFC 1918) address",
  reserved: "a reserved or documentation/benchmark address",
  as112: "an AS112 sink address",
  amt: "an AMT relay anycast address"
}

const blockedV4Reason = (address: ipaddr.IPv4): string | null => {
  const range = address.range()
  if (range === "unicast") return null
  return describeV4[range] ?? `a special-use address (${range})`
}

const globalUnicastV6 = ipaddr.IPv6.parse("2000::")

const blockedV6Reason = (address: ipaddr.IPv6): string | null => {
  const range = address.range()
  if (range === "ipv4Mapped" || range === "rfc6145" || range === "rfc6052" || range === "6to4" || range === "teredo") {
    const inner = embeddedIpv4(address, range)
    if (inner === null) return `an IPv6 translation address (${range}) that hides its IPv4 target`
    const innerReason = blockedV4Reason(inner)
    return innerReason === null ? null : `an IPv6 ${range} form of ${inner.toString()}, ${innerReason}`
  }
  if (range !== "unicast") return `a special-use IPv6 address (${range})`
  // Only 2000::/3 is assigned for global unicast; anything else (IPv4-compatible ::a.b.c.d included) is not public.
  if (!address.match(globalUnicastV6, 3)) return "an IPv6 address outside global unicast 2000::/3"
  return null
}

/** Why an IP address may not be fetched, or null when it is public unicast (or explicitly allowed). */
export const blockedAddressReason = (address: IpAddress, policy: UrlPolicy = defaultPolicy): string | null => {
  if (inAllowRanges(address, policy)) return null
  return address.kind() === "ipv4" ? blockedV4Reason(address as ipaddr.IPv4) : blockedV6Reason(address as ipaddr.IPv6)
}

/** Like `blockedAddressReason` for text from a resolver; text that is no IP address is blocked. */
export const blockedAddressTextReason = (text: string, policy: UrlPolicy = defaultPolicy): string | null => {
  if (!ipaddr.isValid(text)) return `"${text}" is not an IP address`
  return blockedAddressReason(ipaddr.parse(text), policy)
}

const internalSuffixes = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet", ".corp"]

/** Names that only mean something inside a network: they must never reach a resolver. */
export const isInternalName = (hostname: string): boolean => {
  const name = hostname.toLowerCase().replace(/\.+$/, "")
  if (name === "localhost" || !name.includes(".")) return true
  return internalSuffixes.some((suffix) => name.endsWith(suffix))
}

const dottedQuad = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

export type UrlCheck =
  | { readonly ok: true; readonly url: URL; readonly hostname: string; readonly address: IpAddress | null }
  | { readonly ok: false; readonly reason: string }

/**
 * The checks that need no DNS: scheme, credentials, internal names, and IP literals in every spelling
 * (WHATWG URL already turns decimal, hex, octal and short IPv4 forms into dotted quads).
 * A name that passes still has to have each resolved address checked.
 */
export const checkUrl = (input: string | URL, policy: UrlPolicy = defaultPolicy): UrlCheck => {
  let url: URL
  try {
    url = typeof input === "string" ? new URL(input) : input
  } catch {
    return { ok: false, reason: "not an absolute URL" }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `scheme ${url.protocol} is not allowed (http and https only)` }
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "URLs with credentials (user@host) are not allowed" }
  }
  const host = url.hostname
  // WHATWG URL serializes every IPv4 spelling as a dotted quad and IPv6 in brackets, and rejects
  // names whose last label is numeric, so these two shapes are the only IP literals left to find.
  const bracketed = host.startsWith("[") && host.endsWith("]")
  const bare = bracketed ? host.slice(1, -1) : host
  if (bracketed || dottedQuad.test(host)) {
    if (!ipaddr.isValid(bare)) return { ok: false, reason: "host is not a valid IP address" }
    const address = ipaddr.parse(bare)
    const reason = blockedAddressReason(address, policy)
    return reason === null ? { ok: true, url, hostname: bare, address } : { ok: false, reason: `host is ${reason}` }
  }
  if (isInternalName(bare)) return { ok: false, reason: "host is an internal name" }
  return { ok: true, url, hostname: bare, address: null }
}
