// What the `vtree doctor` tests share: a port nothing listens on, and doctor run with an environment of
// its own, its table captured from Console.log and its failure returned.
import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { ConfigProvider, Console, Effect, Layer } from "effect"
import { createServer } from "node:net"
import { doctor } from "../../../src/cli/doctor/DoctorChecks.js"

/** A local port nothing listens on: taken from the OS, then let go. */
export const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

/** `vtree doctor` with only `env` configured: the table it printed, and how it failed. */
export const runDoctor = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const printed: Array<string> = []
    const error = yield* doctor.pipe(
      (self) =>
        Console.consoleWith((console) =>
          Console.withConsole(self, {
            ...console,
            log: (...args) => Effect.sync(() => void printed.push(args.join(" ")))
          })
        ),
      Effect.flip,
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodeHttpClient.layer))
    )
    return { error, table: printed.join("\n") }
  })
