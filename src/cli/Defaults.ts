import { Options } from "@effect/cli"

/**
 * `Options.withDefault`, with the default written into the help: @effect/cli applies a default but
 * only says "This setting is optional.", which leaves a reader guessing what happens without it.
 */
export const withShownDefault = <const B>(value: B, shown: string = String(value)) => <A>(self: Options.Options<A>): Options.Options<A | B> =>
  self.pipe(Options.withDescription(`Default: ${shown}.`), Options.withDefault(value))
