import { Config, Effect, Option } from "effect"
import { homedir } from "node:os"
import { join, resolve } from "node:path"
import { text } from "./ConfigVariables.js"

/**
 * Where vtree keeps what it can compute again (a tree's retrieval embeddings): VTREE_CACHE_DIR, else
 * `$XDG_CACHE_HOME/vtree`, else `~/.cache/vtree`. Never inside the trees folder, which may be read-only
 * or the repository's own samples.
 */
export const loadCacheDir: Effect.Effect<string> = Effect.orDie(
  Config.all({ own: text("VTREE_CACHE_DIR"), xdg: text("XDG_CACHE_HOME") }).pipe(
    Config.map(({ own, xdg }) =>
      resolve(Option.getOrElse(own, () => join(Option.getOrElse(xdg, () => join(homedir(), ".cache")), "vtree")))
    )
  )
)
