// What a failed database operation means, in one line a person can act on: disk full, read-only,
// damaged, or plain SQL trouble. Read from the error code in the cause chain (SQLite's and the
// system's) and from the driver's text (which is all PostgreSQL's errors give for these cases).
import { RunStoreError } from "../../services/RunStore.js"

/** The first line of the innermost message in a cause chain. */
export const describeCause = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null) {
    const inner = (cause as { cause?: unknown }).cause
    if (inner !== undefined && inner !== cause && typeof inner === "object" && inner !== null) {
      return describeCause(inner)
    }
    const message = (cause as { message?: unknown }).message
    if (typeof message === "string" && message.length > 0) return message.split("\n")[0]!
  }
  return String(cause)
}

/** The engine's (or system's) error code somewhere in a cause chain: SQLITE_FULL, SQLITE_READONLY, EROFS, … */
export const errorCode = (cause: unknown): string | undefined => {
  let current: unknown = cause
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string") return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * One line a person can act on for a failed database operation. `shown` names the database (a path,
 * or a URL without its password); `what` is the operation ("saving question q1 of run r"); `generic`
 * starts the line when nothing more is known; `code` overrides the one found in the cause.
 */
export const storageError = (
  shown: string,
  what: string,
  cause: unknown,
  generic?: string,
  code: string = errorCode(cause) ?? ""
): RunStoreError => {
  const detail = describeCause(cause)
  if (code === "SQLITE_FULL" || code === "ENOSPC" || /database or disk is full|no space left/i.test(detail)) {
    return new RunStoreError({
      reason: "DiskFull",
      message: `${shown}: disk full while ${what} — free space on that disk (or move the file) and continue with ` +
        `--resume; finished questions are saved`
    })
  }
  if (
    code.startsWith("SQLITE_READONLY") || code === "EROFS" || code === "EACCES" || /readonly|read-only/i.test(detail)
  ) {
    return new RunStoreError({
      reason: "DbReadOnly",
      message: `${shown}: cannot write there (read-only location or no permission) while ${what} — make the file ` +
        `and its folder writable, or pass --db with a writable path; \`vtree report\` still reads it`
    })
  }
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB" || /malformed|not a database/i.test(detail)) {
    return new RunStoreError({
      reason: "DbCorrupt",
      message:
        `${shown}: the database is damaged or truncated (${detail}) — restore it from a copy, or pass --db with another path`
    })
  }
  if (code.startsWith("SQLITE_CANTOPEN")) {
    return new RunStoreError({
      reason: "DbUnreadable",
      message:
        `${shown}: cannot open the database (${detail}) — check the file and its folder's permissions, or pass --db with another path`
    })
  }
  return new RunStoreError({
    reason: "Sql",
    message: `${shown}: ${generic ?? `${what} failed`} (${detail}) — check the file, or pass --db with another path`
  })
}
