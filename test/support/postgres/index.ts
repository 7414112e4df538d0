/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, a server on a free
 * loopback port (its socket in the same folder), stopped and deleted by `stop`. initdb and postgres
 * refuse to run as root, so as root they run as the `postgres` user (`runuser`), which owns the folder.
 * Durability is off (fsync, synchronous_commit) unless asked for: the cluster dies with the test.
 *
 *   const cluster = await start()
 *   const url = await cluster.createDatabase("t1")   // postgres://postgres@127.0.0.1:PORT/t1
 *   await cluster.stop()
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:net"
import * as path from "node:path"
import { promisify } from "node:util"
import Pg from "pg"
import { makeTempDir, removeTempDir } from "../TempDir.js"

const run = promisify(execFile)

/**
 * Where Debian's and Ubuntu's postgresql package puts the server binaries: /usr/lib/postgresql/<major>/bin, the
 * newest major installed (Debian 12 ships 15, Ubuntu 24.04 16); VTREE_PG_BIN overrides.
 */
const debianBinDir = (): string => {
  const root = "/usr/lib/postgresql"
  const majors = fs.existsSync(root) ? fs.readdirSync(root).filter((name) => /^\d+$/.test(name)) : []
  const newest = majors.map(Number).sort((a, b) => b - a)[0]
  return path.join(root, String(newest ?? 15), "bin")
}

export const binDir = process.env["VTREE_PG_BIN"] ?? debianBinDir()

export const available = (): boolean => fs.existsSync(path.join(binDir, "initdb"))

export interface PgCluster {
  /** Connection string of the `postgres` database. */
  readonly url: string
  readonly port: number
  /** Creates an empty database and returns its connection string. */
  readonly createDatabase: (name: string) => Promise<string>
  /** Stops the server (`pg_ctl stop -m fast`: clients are disconnected) and starts it again, data kept: an outage. */
  readonly stopServer: () => Promise<void>
  readonly startServer: () => Promise<void>
  readonly stop: () => Promise<void>
}

const isRoot = () => process.getuid?.() === 0

/** Runs a server binary, as `postgres` when we are root. */
const pg = (binary: string, args: ReadonlyArray<string>) => {
  const file = path.join(binDir, binary)
  return isRoot() ? run("runuser", ["-u", "postgres", "--", file, ...args]) : run(file, [...args])
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export interface ClusterOptions {
  /** Keep PostgreSQL's durability defaults (fsync, synchronous_commit on): for benchmarks of writes. */
  readonly durable?: boolean
}

export const start = async (clusterOptions: ClusterOptions = {}): Promise<PgCluster> => {
  if (!available()) {
    throw new Error(
      `PostgreSQL server binaries not found in ${binDir}: install the Debian postgresql package (.ci/run does) or set VTREE_PG_BIN`
    )
  }
  const root = makeTempDir("pg")
  const data = path.join(root, "data")
  // The server must own its data directory and be able to reach it.
  if (isRoot()) {
    fs.chmodSync(root, 0o755)
    await run("chown", ["postgres:postgres", root])
  }
  try {
    await pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
    const port = await freePort()
    const options = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${root}`,
      ...(clusterOptions.durable === true
        ? []
        : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
      "-c max_connections=200"
    ].join(" ")
    const startServer = async () => {
      await pg("pg_ctl", ["-D", data, "-o", options, "-l", path.join(root, "server.log"), "-w", "-t", "60", "start"])
    }
    await startServer()
    const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
    let stopped = false
    return {
      url: url("postgres"),
      port,
      createDatabase: async (name) => {
        await pg("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name])
        return url(name)
      },
      stopServer: async () => {
        await pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
      },
      startServer,
      stop: async () => {
        if (stopped) return
        stopped = true
        await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined)
        removeTempDir(root)
      }
    }
  } catch (error) {
    const log = path.join(root, "server.log")
    const tail = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").slice(-5).join(" | ") : ""
    removeTempDir(root)
    throw new Error(`could not start a throwaway PostgreSQL cluster: ${String(error)} ${tail}`)
  }
}

/** Runs one statement on its own connection and returns its rows. */
export const query = async <Row>(url: string, text: string): Promise<ReadonlyArray<Row>> => {
  const client = new Pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows as Array<Row>
  } finally {
    await client.end()
  }
}
