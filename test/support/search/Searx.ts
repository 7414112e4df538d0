// The real SearXNG-compatible server Debian ships (`searx`, 1.1.0: the same /search?format=json API),
// started on loopback with settings the test writes. This machine reaches no search engine, so every
// engine fails: the case the hub must not report as an empty success. `.ci/run` installs the package.
import { Effect, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { makeTempDir, removeTempDir } from "../TempDir.js"

// Debian installs searx for the system Python, which a pyenv or venv `python3` on PATH does not see.
const python = "/usr/bin/python3"

/** The engines the settings enable, by category: general (web) and news. */
export const searxEngines = { general: ["duckduckgo", "bing", "wikipedia"], news: ["bing news"] } as const

// searx 1.1 has no defaults to fall back on when a settings file is given: every section it reads is here.
const settings = (port: number) => `
general: { debug: false, instance_name: "vtree-test", contact_url: false, enable_stats: false }
brand: { git_url: "https://example.invalid", git_branch: master, issue_url: "https://example.invalid", docs_url: "https://example.invalid", public_instances: "https://example.invalid", wiki_url: "https://example.invalid", twitter_url: "https://example.invalid" }
search: { safe_search: 0, autocomplete: "", default_lang: "", ban_time_on_fail: 0, max_ban_time_on_fail: 0, prefer_configured_language: false }
server: { port: ${port}, bind_address: "127.0.0.1", secret_key: "vtree-test-only", base_url: false, image_proxy: false, http_protocol_version: "1.0", method: "GET", default_http_headers: {} }
ui: { autofocus: false, archive_today: false, static_path: "/usr/share/python3-searx/static", templates_path: "/usr/share/python3-searx/templates", default_theme: oscar, default_locale: "", theme_args: { oscar_style: logicodev } }
outgoing: { request_timeout: 1.0, useragent_suffix: "", pool_connections: 10, pool_maxsize: 2 }
engines:
  - { name: duckduckgo, engine: duckduckgo, shortcut: ddg }
  - { name: wikipedia, engine: wikipedia, shortcut: wp, base_url: "https://{language}.wikipedia.org/" }
  - { name: bing, engine: bing, shortcut: bi }
  - { name: bing news, engine: bing_news, shortcut: bin }
locales: { en: English }
doi_resolvers: { oadoi.org: "https://oadoi.org/" }
default_doi_resolver: oadoi.org
`

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(
        () => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
      )
    })
  })

const startSearx = async (): Promise<{ origin: string; child: ChildProcess; dir: string; log: () => string }> => {
  const dir = makeTempDir("searx")
  const port = await freePort()
  const file = join(dir, "settings.yml")
  writeFileSync(file, settings(port))
  let log = ""
  const child = spawn(python, ["-m", "searx.webapp"], {
    env: { PATH: process.env["PATH"] ?? "", HOME: dir, SEARX_SETTINGS_PATH: file },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
  const origin = `http://127.0.0.1:${port}`
  // Polling a starting server: the only wait here, and no test asserts how long it took.
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`searx exited with ${child.exitCode}:\n${log.slice(-2000)}`)
    const up = await fetch(`${origin}/config`).then((response) => response.ok, () => false)
    if (up) return { origin, child, dir, log: () => log }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill("SIGKILL")
  throw new Error(`searx did not answer on ${origin} within 30 s:\n${log.slice(-2000)}`)
}

/** A running searx on a free loopback port, stopped with the scope. */
export const searxServer: Effect.Effect<{ readonly origin: string; readonly log: () => string }, never, Scope.Scope> =
  Effect.acquireRelease(
    Effect.promise(startSearx),
    ({ child, dir }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          child.once("close", () => resolve())
          if (child.exitCode !== null || !child.kill("SIGTERM")) resolve()
        })
      ).pipe(Effect.ensuring(Effect.sync(() => removeTempDir(dir))))
  )
