import { Context, Layer } from "effect"
import { lookup } from "node:dns/promises"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/**
 * Name resolution for the URL reader. A port so tests can make a public-looking name resolve to a
 * private address, or answer differently on each call, to prove every address is checked and pinned.
 * Promise-based because its caller is the socket's `lookup` hook, outside any fiber.
 */
export class DnsResolver extends Context.Tag("vtree/DnsResolver")<
  DnsResolver,
  {
    readonly resolve: (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>
  }
>() {
  /** The operating system's resolver (what every other program on the machine would see). */
  static readonly layer: Layer.Layer<DnsResolver> = Layer.succeed(
    DnsResolver,
    DnsResolver.of({
      resolve: async (hostname) => {
        const answers = await lookup(hostname, { all: true, verbatim: true })
        return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }))
      }
    })
  )
}
