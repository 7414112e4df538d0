/** What every command writes through and how much: the terminal, the log level, tracing. */
import { Effect, FiberRef, Layer, Logger, LogLevel, Option } from "effect"
import type { ConfigurationError } from "../../config/ConfigurationError.js"
import { loadTracingConfig } from "../../config/TracingConfig.js"
import * as OtlpTracing from "../../layers/otel/OtlpTracing.js"
import * as TerminalConsole from "../TerminalConsole.js"

/** The process's stdout and stderr, which every line a command writes goes through. */
export const stdio = TerminalConsole.layer({ stdout: process.stdout, stderr: process.stderr })

/**
 * Spans exported over OTLP when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set (docs/tracing.md); otherwise
 * tracing stays off and nothing of OpenTelemetry is loaded: a run makes thousands of calls.
 */
export const tracing: Layer.Layer<never, ConfigurationError> = Layer.unwrapEffect(
  Effect.map(
    loadTracingConfig,
    Option.match({
      onNone: () => Layer.setTracerEnabled(false),
      // OtlpTracing imports the SDK and the exporter when its layer is built: only with an endpoint.
      onSome: OtlpTracing.layer
    })
  )
)

/**
 * Warnings and errors only unless `--log-level` chose a level (before the subcommand or after it: @effect/cli
 * sets the minimum either way, and Info is what it is otherwise); spans only where `tracing` exports them.
 */
export const quiet = Layer.mergeAll(
  Layer.unwrapEffect(
    Effect.map(
      FiberRef.get(FiberRef.currentMinimumLogLevel),
      (level) => level === LogLevel.Info ? Logger.minimumLogLevel(LogLevel.Warning) : Layer.empty
    )
  ),
  tracing
)
