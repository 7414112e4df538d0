// Money: prices per role, and what a run's calls cost at them. Pure; the CLI reads the prices from
// VTREE_<ROLE>_PRICE or a --prices file (parsePriceText / decodePricesFile below) and hands them in.
import type { ParseResult } from "effect"
import { Either, Schema } from "effect"
import { callRoles } from "./CallRole.js"
import { firstDecodeIssue, issueLine } from "./DecodeIssue.js"
import { parseUserJson } from "./UserJson.js"

/** Every provider role that reports its calls (as CallLog's CallRole): speech-to-text ("asr") serves the tree builder. */
type CallRole = (typeof callRoles)[number] | "asr"

/** USD per 1,000,000 tokens. */
export const Price = Schema.Struct({
  input: Schema.NonNegative,
  /** Prompt tokens served from the provider's cache; defaults to `input` when a file leaves it out. */
  cachedInput: Schema.optionalWith(Schema.NonNegative, { exact: true }),
  output: Schema.NonNegative
})
export type Price = typeof Price.Type

export type Prices = Partial<Record<CallRole, Price>>

export const priceRoles: ReadonlyArray<CallRole> = callRoles

/** The `--prices` file: `{ "agent": { "input": 0.6, "cachedInput": 0.15, "output": 2.4 }, … }`, any subset of roles. */
export const PricesFile = Schema.Struct({
  agent: Schema.optionalWith(Price, { exact: true }),
  tool: Schema.optionalWith(Price, { exact: true }),
  vlm: Schema.optionalWith(Price, { exact: true }),
  embed: Schema.optionalWith(Price, { exact: true }),
  ocr: Schema.optionalWith(Price, { exact: true }),
  judge: Schema.optionalWith(Price, { exact: true })
}).annotations({ parseOptions: { onExcessProperty: "error" } })

/** What a call needs for its cost; `cachedPromptTokens` is absent when the endpoint did not report it. */
export interface CostedCall {
  readonly role: CallRole | string
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedPromptTokens?: number | null
}

/**
 * `input,cached,output` (or `input,output`, cached at the input price), USD per 1M tokens, as in
 * `VTREE_AGENT_PRICE=0.60,0.15,2.40`. Returns the problem in words on a bad value.
 */
export const parsePriceText = (text: string): Either.Either<Price, string> => {
  const parts = text.split(",").map((part) => part.trim())
  const numbers = parts.map(Number)
  if (
    (parts.length !== 2 && parts.length !== 3) || parts.some((part) => part === "") ||
    numbers.some((n) => !Number.isFinite(n) || n < 0)
  ) {
    return Either.left(
      `"${text}": expected input,cached,output (or input,output) in USD per 1M tokens, e.g. 0.60,0.15,2.40`
    )
  }
  return Either.right(
    numbers.length === 3
      ? { input: numbers[0]!, cachedInput: numbers[1]!, output: numbers[2]! }
      : { input: numbers[0]!, output: numbers[1]! }
  )
}

const decodeFile = Schema.decodeUnknownEither(PricesFile, { errors: "first" })

/** The prices file's JSON text, decoded; the error reads `<file>: <field>: <problem> — <fix>`. */
export const decodePricesFile = (file: string, text: string): Either.Either<Prices, string> => {
  const parsed = parseUserJson(file, text)
  if (Either.isLeft(parsed)) {
    return Either.left(
      parsed.left.reason === "TooDeep"
        ? parsed.left.message
        : `${file}: not JSON — write {"agent": {"input": 0.6, "cachedInput": 0.15, "output": 2.4}, …}`
    )
  }
  return Either.mapLeft(
    decodeFile(parsed.right),
    (error: ParseResult.ParseError) =>
      `${file}: ${
        issueLine(firstDecodeIssue(error))
      } — give each role as {"input": USD, "cachedInput": USD, "output": USD} per 1M tokens ` +
      `(roles: ${priceRoles.join(", ")})`
  )
}

/** USD for one call at `price`. Without a cached count, every prompt token is charged at the input price. */
export const callCost = (call: CostedCall, price: Price): number => {
  const cached = Math.min(call.cachedPromptTokens ?? 0, call.promptTokens)
  return ((call.promptTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) +
    call.completionTokens * price.output) / 1_000_000
}

/**
 * The cost of a set of calls, or null (unknown) when a call that used tokens has no price for its role:
 * a partial sum would read as the whole bill. Calls without tokens (a local OCR engine) cost nothing.
 */
export const costOfCalls = (calls: ReadonlyArray<CostedCall>, prices: Prices): number | null => {
  let total = 0
  for (const call of calls) {
    if (call.promptTokens + call.completionTokens === 0) continue
    const price = prices[call.role as CallRole]
    if (price === undefined) return null
    total += callCost(call, price)
  }
  return total
}

/** Roles whose calls used tokens but have no price: what to set for the cost to be known. */
export const unpricedRoles = (
  calls: ReadonlyArray<CostedCall>,
  prices: Prices
): ReadonlyArray<string> => [
  ...new Set(
    calls.filter((c) => c.promptTokens + c.completionTokens > 0 && prices[c.role as CallRole] === undefined).map((c) =>
      c.role
    )
  )
]

/** `$1,234.5678`, or `unknown`. */
export const formatUsd = (usd: number | null): string =>
  usd === null ? "unknown" : `$${usd.toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 })}`
