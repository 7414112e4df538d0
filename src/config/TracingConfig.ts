import { Config, ConfigError, Effect, Either, Option, Redacted } from "effect"
import type { ConfigurationError } from "./ConfigurationError.js"
import { flag, httpUrl, load, parsed, secret, text } from "./ConfigVariables.js"

/**
 * Trace export over OTLP/HTTP, read from the standard OTEL_* variables so a collector, Langfuse or
 * Phoenix is pointed at the same way as any other OpenTelemetry program. Only what vtree honours is read.
 */
export interface TracingConfig {
  /** The full traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  readonly url: string
  readonly protocol: "http/protobuf" | "http/json"
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: often an Authorization header, so never printed. */
  readonly headers: Redacted.Redacted<Readonly<Record<string, string>>>
  readonly serviceName: string
  readonly resourceAttributes: Readonly<Record<string, string>>
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: messages and tool arguments/results on spans. */
  readonly captureContent: boolean
}

export const defaultServiceName = "vtree"

/**
 * `key=value,key=value` as the OTel environment specification writes headers and resource attributes
 * (W3C Baggage octets: values percent-encoded, so `Basic%20…` is `Basic …`); undefined on a malformed pair.
 */
export const parseKeyValueList = (raw: string): Record<string, string> | undefined => {
  const entries: Array<[string, string]> = []
  for (const part of raw.split(",")) {
    if (part.trim() === "") continue
    const at = part.indexOf("=")
    if (at <= 0) return undefined
    const key = part.slice(0, at).trim()
    try {
      entries.push([decodeURIComponent(key), decodeURIComponent(part.slice(at + 1).trim())])
    } catch {
      return undefined
    }
    if (key === "") return undefined
  }
  return Object.fromEntries(entries)
}

/** The traces URL the spec derives from a base endpoint: its path with `v1/traces` appended. */
export const tracesUrl = (base: string): string => `${base.replace(/\/+$/, "")}/v1/traces`

const endpoint = (name: string) =>
  parsed(name, "an http(s) URL such as http://localhost:4318", (raw) => {
    const url = httpUrl(raw)
    return url === undefined ? undefined : Option.some(url)
  }, Option.none<string>())

const protocol = (name: string) =>
  parsed(
    name,
    "http/protobuf or http/json (vtree exports over HTTP; grpc is not supported)",
    (raw): TracingConfig["protocol"] | undefined => raw === "http/protobuf" || raw === "http/json" ? raw : undefined,
    undefined
  )

// A header list holds credentials: read as a secret and parsed without its text reaching an error message.
const headers = (name: string) =>
  secret(name).pipe(Config.mapOrFail(Option.match({
    onNone: () => Either.right(Option.none<Redacted.Redacted<Record<string, string>>>()),
    onSome: (raw) => {
      const list = parseKeyValueList(Redacted.value(raw))
      return list === undefined
        ? Either.left(
          ConfigError.InvalidData(
            [name],
            `${name}: expected key=value pairs separated by commas, e.g. Authorization=Basic%20<base64> — fix or unset ${name}`
          )
        )
        : Either.right(Option.some(Redacted.make(list)))
    }
  })))

const keyValues = (name: string) => parsed(name, "key=value pairs separated by commas", parseKeyValueList, {})

/**
 * The trace export settings, or none when neither endpoint variable is set (or OTEL_SDK_DISABLED=true):
 * then nothing about OpenTelemetry is loaded.
 */
export const loadTracingConfig: Effect.Effect<Option.Option<TracingConfig>, ConfigurationError> = load(
  Effect.gen(function*() {
    if (yield* flag("OTEL_SDK_DISABLED")) return Option.none()
    const traces = yield* endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    const base = yield* endpoint("OTEL_EXPORTER_OTLP_ENDPOINT")
    const url = Option.orElse(traces, () => Option.map(base, tracesUrl))
    if (Option.isNone(url)) return Option.none()
    const chosenProtocol = (yield* protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")) ??
      (yield* protocol("OTEL_EXPORTER_OTLP_PROTOCOL")) ?? "http/protobuf"
    const resourceAttributes = yield* keyValues("OTEL_RESOURCE_ATTRIBUTES")
    const traceHeaders = yield* headers("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
    const allHeaders = yield* headers("OTEL_EXPORTER_OTLP_HEADERS")
    return Option.some<TracingConfig>({
      url: url.value,
      protocol: chosenProtocol,
      // Combined, the traces-only list winning, as the OTel exporters combine them.
      headers: Redacted.make({
        ...Option.match(allHeaders, { onNone: () => ({}), onSome: Redacted.value }),
        ...Option.match(traceHeaders, { onNone: () => ({}), onSome: Redacted.value })
      }),
      // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES, as the spec orders them.
      serviceName: Option.getOrElse(
        yield* text("OTEL_SERVICE_NAME"),
        () => resourceAttributes["service.name"] ?? defaultServiceName
      ),
      resourceAttributes,
      captureContent: yield* flag("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
    })
  })
)
