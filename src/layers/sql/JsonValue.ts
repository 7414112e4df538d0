// What the store writes into a JSON column: never a secret, never a throw.
import { Redacted } from "effect"

const credentialKey = (key: string): boolean => {
  const k = key.toLowerCase().replace(/[-_]/g, "")
  return k.endsWith("apikey") || k.endsWith("token") || k.includes("secret") || k.includes("password") ||
    k === "authorization"
}

/**
 * A JSON-ready copy of `value`. `Redacted` values are dropped (object keys omitted, array slots null),
 * and with `stripCredentials` so are keys named like credentials, so config_json can never hold a key
 * even if a caller forgot to redact it. Never throws: cycles, bigints and functions are tamed.
 */
export const toJsonValue = (value: unknown, stripCredentials = false): unknown => {
  const seen = new WeakSet<object>()
  const dropped = Symbol("dropped")
  const walk = (v: unknown): unknown => {
    if (Redacted.isRedacted(v)) return dropped
    if (v === null || typeof v === "string" || typeof v === "boolean") return v
    if (typeof v === "number") return Number.isFinite(v) ? v : String(v)
    if (typeof v === "bigint") return v.toString()
    if (typeof v === "undefined" || typeof v === "function" || typeof v === "symbol") return dropped
    if (v instanceof Date) return v.toISOString()
    const object = v as object
    if (seen.has(object)) return "[circular]"
    seen.add(object)
    try {
      if (Array.isArray(object)) {
        return object.map((item) => {
          const out = walk(item)
          return out === dropped ? null : out
        })
      }
      if (object instanceof Map) return walk(Object.fromEntries(object))
      if (object instanceof Set) return walk([...object])
      const out: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(object)) {
        if (stripCredentials && credentialKey(key)) continue
        const converted = walk(item)
        if (converted !== dropped) out[key] = converted
      }
      return out
    } finally {
      seen.delete(object)
    }
  }
  const result = walk(value)
  return result === dropped ? null : result
}

/** toJsonValue of a record (a step's args, reflect, plan): still a record, its values JSON-ready. */
export const jsonRecord = <A extends { readonly [key: string]: unknown }>(value: A): A => toJsonValue(value) as A
