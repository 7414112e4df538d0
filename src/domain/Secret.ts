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

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

/**
 * The forms in which a server may echo a configured key: as configured, trimmed (a key pasted with a
 * trailing CR or spaces reaches the server without them), and URL-encoded (a key sent in a query string).
 * Case is left to the match: some servers upper- or lower-case what they echo.
 */
const echoedForms = (secret: string): ReadonlyArray<string> => {
  // The whitespace around a key is no part of it: masking it would eat the spaces beside an echo.
  const key = secret.trim()
  return [...new Set([key, encodeURIComponent(key)])].filter((form) => form.length >= minimumSecretLength).sort((
    a,
    b
  ) => b.length - a.length)
}

/**
 * `text` with every whole-token occurrence of `secret`, in any of the forms a server may echo it and in
 * any case, replaced by `[redacted]`; nothing else changes.
 */
export const redactSecret = (text: string, secret: string): string => {
  const forms = echoedForms(secret)
  if (forms.length === 0) return text
  const alternatives = forms.map(escapeRegExp).join("|")
  return text.replace(
    new RegExp(`(?<![${tokenCharacter}])(?:${alternatives})(?![${tokenCharacter}])`, "gi"),
    "[redacted]"
  )
}

/** Query parameters that carry a credential (libpq's `password` and `sslpassword`, `api_key`, `token`, …). */
const credentialParameter = /pass|pwd|secret|token|key|auth|credential|signature/i

/**
 * A URL as messages show it: the password of `user:pw@` and the value of every credential-like query
 * parameter (PostgreSQL's `?password=`) replaced by `***`. Text that is not a URL is not shown at all.
 */
export const displayUrl = (url: string, unparsable = "the URL"): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return unparsable
  }
  if (parsed.password !== "") parsed.password = "***"
  if (parsed.search === "") return parsed.toString()
  const query = parsed.search
    .slice(1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=")
      if (equals < 0) return pair
      const name = pair.slice(0, equals)
      let decoded = name
      try {
        decoded = decodeURIComponent(name)
      } catch {
        // a malformed escape is still a name to judge as written
      }
      return credentialParameter.test(decoded) ? `${name}=***` : pair
    })
    .join("&")
  // Rebuilt by hand so that the parameters keep their order and their own encoding.
  return `${parsed.toString().slice(0, -parsed.search.length - parsed.hash.length)}?${query}${parsed.hash}`
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
