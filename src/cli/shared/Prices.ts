import { Effect, Either, Option, Schema } from "effect"
import { loadPriceText } from "../../config/RunConfig.js"
import { decodePricesFile, parsePriceText, priceRoles, type Prices } from "../../domain/Cost.js"
import { readUserText, userFileCaps } from "../../domain/UserFile.js"

/** Which price input was refused: the --prices file (unreadable or invalid), a VTREE_<ROLE>_PRICE variable, or --max-cost. */
export const PricesErrorReason = Schema.Literal("Unreadable", "InvalidFile", "InvalidVariable", "InvalidMaxCost")
export type PricesErrorReason = typeof PricesErrorReason.Type

/** Prices that cannot be read: one line naming the variable or file, the field and the fix. */
export class PricesError extends Schema.TaggedError<PricesError>()("PricesError", {
  reason: PricesErrorReason,
  message: Schema.String
}) {}

/**
 * Prices per role: the `--prices` file, else the prices the run was started with (`stored`), then
 * `VTREE_<ROLE>_PRICE` (input,cached,output USD per 1M tokens) for each role, which wins over both so one
 * role can be tried at another price. A file replaces the stored prices whole: it is the price list asked for.
 */
export const loadPrices = Effect.fn("Prices.load")(function*(file: Option.Option<string>, stored: Prices = {}) {
  const prices: { -readonly [K in keyof Prices]: Prices[K] } = Option.isSome(file) ? {} : { ...stored }
  if (Option.isSome(file)) {
    const text = yield* readUserText(file.value, userFileCaps.small, { strict: true }).pipe(
      Effect.mapError((error) => new PricesError({ reason: "Unreadable", message: `--prices ${error.message}` }))
    )
    const decoded = decodePricesFile(file.value, text)
    if (Either.isLeft(decoded)) return yield* new PricesError({ reason: "InvalidFile", message: decoded.left })
    Object.assign(prices, decoded.right)
  }
  for (const role of priceRoles) {
    const name = `VTREE_${role.toUpperCase()}_PRICE`
    const value = yield* loadPriceText(role).pipe(Effect.orElseSucceed(() => Option.none<string>()))
    if (Option.isNone(value)) continue
    const parsed = parsePriceText(value.value)
    if (Either.isLeft(parsed)) {
      return yield* new PricesError({ reason: "InvalidVariable", message: `${name}=${parsed.left}` })
    }
    prices[role] = parsed.right
  }
  return prices as Prices
})
