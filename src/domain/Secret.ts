// Keeping a key out of what people read. A server may echo the Authorization header, or the key, in its
// error text; that text travels on in a ProviderError, into the database and onto the terminal.
import { Redacted } from "effect"

/**
 * Shorter keys are not masked: masking `e` would turn "connection failed" into "conn[redacted]ction
 * fail[redacted]d". No real provider issues keys this short; `vtree doctor` flags one as suspicious.
 */
export const minimumSecretLength = 8

// A key is a token: it is masked where it stands on its own, not where its characters happen to sit
// inside a longer word.
const tokenCharacter = "A-Za-z0-9_\\-"

/** `text` with every whole-token occurrence of `secret` replaced by `[redacted]`; nothing else changes. */
export const redactSecret = (text: string, secret: string): string => {
  if (secret.length < minimumSecretLength) return text
  const escaped = secret.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  return text.replace(new RegExp(`(?<![${tokenCharacter}])${escaped}(?![${tokenCharacter}])`, "g"), "[redacted]")
}

/** A key too short to be real (and too short to mask): what `vtree doctor` warns about. */
export const isSuspiciousSecret = (secret: Redacted.Redacted<string>): boolean =>
  Redacted.value(secret).trim().length < minimumSecretLength

/**
 * Whether `raw` is a URL with a user name or password (`scheme://user:pw@host`): credentials vtree would
 * show wherever it names the endpoint. Several URLs separated by commas are each looked at.
 */
export const hasUrlCredentials = (raw: string): boolean =>
  raw.split(",").some((part) => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(part.trim()))

/** Where the key for a URL variable goes instead (none: vtree sends that server no credentials). */
const keyVariableOf = (name: string): string | undefined =>
  name === "VTREE_SEARCH_GITHUB_URL"
    ? "VTREE_SEARCH_GITHUB_TOKEN"
    : /_BASE_URL$/.test(name)
    ? name.replace(/_BASE_URL$/, "_API_KEY")
    : undefined

/**
 * The one line for a URL variable with credentials in it. Such credentials would be shown wherever vtree
 * names the endpoint (doctor, stored errors, logs); the message never repeats the value.
 */
export const urlCredentialsMessage = (name: string): string => {
  const keyVariable = keyVariableOf(name)
  return `${name} holds a user name or password (user:pw@host): remove it from the URL` +
    (keyVariable === undefined ? " — vtree sends no credentials to this server" : ` and put the key in ${keyVariable}`)
}

/**
 * Text from a stored record (an error message) with credentials masked whatever key they belong to: a
 * report does not know the keys a run used, and a proxy may echo one. Masks a URL's user name and
 * password, a bearer token, `sk-…` style keys and key-like query parameters; the rest is unchanged.
 */
export const maskCredentials = (text: string): string =>
  text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, "$1[redacted]@")
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, "$1 [redacted]")
    .replace(/(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{8,}/g, "[redacted]")
    .replace(/([?&](?:api[_-]?key|key|token|access_token|password)=)[^&\s]+/gi, "$1[redacted]")
