// One throwaway PostgreSQL cluster per test file, started before its tests and stopped after them,
// with a fresh database per call of `database`. Only for vitest files: the hooks are vitest's.
import { afterAll, beforeAll } from "@effect/vitest"
import { type PgCluster, start } from "./index.js"

export interface FileCluster {
  /** The running cluster; only inside tests (after beforeAll). */
  readonly cluster: () => PgCluster
  /** A new empty database, named `<prefix>_<n>`; its connection string. */
  readonly database: (prefix?: string) => Promise<string>
}

export const useCluster = (): FileCluster => {
  let cluster: PgCluster | undefined
  let databases = 0
  beforeAll(async () => {
    cluster = await start()
  }, 120_000)
  afterAll(async () => {
    await cluster?.stop()
  })
  return {
    cluster: () => cluster!,
    database: (prefix = "db") => cluster!.createDatabase(`${prefix}_${++databases}`)
  }
}

export { query } from "./index.js"
