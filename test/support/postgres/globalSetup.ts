// One throwaway PostgreSQL cluster per `vitest run`, for the integration and e2e projects (vitest.config.ts):
// started here, its URL handed to test files with `provide` (read by ./vitest.ts through `inject`), where
// each file creates its own databases. Both projects list this file; their setups run in vitest's main
// process, so the cluster lives on globalThis, started by the first project and stopped by the last.
// Starting it costs a few seconds, paid once, and only when a file of those projects is selected.
import type { TestProject } from "vitest/node"
import { type PgCluster, start } from "./index.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** Connection string of the shared cluster's `postgres` database. */
    readonly postgresUrl: string
    readonly postgresPort: number
  }
}

interface Shared {
  cluster: Promise<PgCluster>
  users: number
}

const key = Symbol.for("vtree.test.postgres")
const holder = globalThis as typeof globalThis & { [key]?: Shared }

export default async function setup(project: TestProject) {
  const shared = (holder[key] ??= { cluster: start(), users: 0 })
  shared.users += 1
  const cluster = await shared.cluster
  project.provide("postgresUrl", cluster.url)
  project.provide("postgresPort", cluster.port)
  return async () => {
    shared.users -= 1
    if (shared.users > 0) return
    delete holder[key]
    await cluster.stop()
  }
}
