/** `doctor`: it builds each configured adapter itself, to time one call each; it needs only an HTTP client. */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"

/** The platform's fetch, for the OCR servers' `/health`. */
export const http = FetchHttpClient.layer
