import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { loadTracingConfig, parseKeyValueList } from "../../../src/config/TracingConfig.js"

const load = (env: Record<string, string>) =>
  loadTracingConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("TracingConfig", () => {
  it.effect("is none without an endpoint, so nothing of OpenTelemetry is loaded", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone(yield* load({ OTEL_SERVICE_NAME: "x" })))
      assert.isTrue(
        Option.isNone(yield* load({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }))
      )
    }))

  it.effect("appends /v1/traces to the base endpoint and takes the traces endpoint as given", () =>
    Effect.gen(function*() {
      const base = Option.getOrThrow(yield* load({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }))
      assert.strictEqual(base.url, "http://c:4318/v1/traces")
      assert.strictEqual(base.protocol, "http/protobuf")
      assert.strictEqual(base.serviceName, "vtree")
      assert.isFalse(base.captureContent)
      const traces = Option.getOrThrow(
        yield* load({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://lf.example/api/public/otel/v1/traces",
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json"
        })
      )
      assert.strictEqual(traces.url, "https://lf.example/api/public/otel/v1/traces")
      assert.strictEqual(traces.protocol, "http/json")
    }))

  it.effect("decodes percent-encoded headers, the traces list winning, and keeps them redacted", () =>
    Effect.gen(function*() {
      const config = Option.getOrThrow(
        yield* load({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
          OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20abc,x-a=1",
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-a=2"
        })
      )
      assert.deepStrictEqual(Redacted.value(config.headers), { Authorization: "Basic abc", "x-a": "2" })
      assert.notInclude(String(config.headers), "abc")
    }))

  it.effect("refuses grpc and a malformed header list without printing the header", () =>
    Effect.gen(function*() {
      const grpc = yield* Effect.flip(
        load({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })
      )
      assert.strictEqual(grpc.variable, "OTEL_EXPORTER_OTLP_PROTOCOL")
      const headers = yield* Effect.flip(
        load({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "secret-token-without-key" })
      )
      assert.strictEqual(headers.variable, "OTEL_EXPORTER_OTLP_HEADERS")
      assert.notInclude(headers.message, "secret-token")
    }))

  it("reads key=value lists as the OTel environment spec writes them", () => {
    assert.deepStrictEqual(parseKeyValueList("a=1, b = x%2Cy ,"), { a: "1", b: "x,y" })
    assert.isUndefined(parseKeyValueList("=1"))
    assert.isUndefined(parseKeyValueList("novalue"))
  })
})
