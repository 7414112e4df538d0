// A test file's databases in the run's one throwaway PostgreSQL cluster (./globalSetup.ts starts it
// and provides its URL): `database` creates a fresh empty one per call. Only for vitest files of the
// integration and e2e projects, whose globalSetup lists ./globalSetup.ts.
import { inject } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { query } from "./index.js"

export interface FileCluster {
  /** The shared cluster's port (a port beside it is one nothing listens on). */
  readonly port: () => number
  /** A new empty database, named `<prefix>_<random>`; its connection string. */
  readonly database: (prefix?: string) => Promise<string>
}

export const useCluster = (): FileCluster => ({
  port: () => inject("postgresPort"),
  database: async (prefix = "db") => {
    // Unique across files running side by side on the same cluster.
    const name = `${prefix}_${randomBytes(6).toString("hex")}`
    const url = new URL(inject("postgresUrl"))
    await query(url.href, `CREATE DATABASE ${name}`)
    url.pathname = `/${name}`
    return url.href
  }
})

export { query } from "./index.js"
