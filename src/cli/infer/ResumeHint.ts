// The command that continues a run, as vtree prints it at Ctrl-C or a budget stop: one a person can paste as it
// stands, so it names the database whenever it is not the one `vtree infer` opens unsaid.
import { displayDb } from "../shared/StoreLayers.js"

/** `value` as one shell word: as it is when it needs no quoting, else in single quotes. */
export const shellWord = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`

/**
 * `vtree infer --resume --run-id R`, with `--db D` when `db` is not `unsaidDb` (what `--db` reads as when left out:
 * VTREE_DB_URL, else vtree.db). A PostgreSQL URL is shown without its password, as every message shows it.
 */
export const resumeCommand = (runId: string, db: string, unsaidDb: string): string =>
  `vtree infer --resume --run-id ${shellWord(runId)}${db === unsaidDb ? "" : ` --db ${shellWord(displayDb(db))}`}`
