// `vtree doctor` as a program: each role's settings loaded on its own, one timed check per provider, the table and
// the verdict. Which adapter answers a check is the CLI's choice (cli/doctor/DoctorChecks.ts): a program never builds one.
import { Clock, Console, Effect, Option, Schema } from "effect"
import { type ConfigurationError } from "../../config/ConfigurationError.js"
import { configurationHelp, loadRoleConfigs, type ProvidersConfig } from "../../config/ProviderConfig.js"
import type { ProviderError } from "../../domain/ProviderError.js"
import { isSuspiciousSecret, minimumSecretLength } from "../../domain/Secret.js"
import { alignColumns } from "../../text/TextTable.js"

export interface DoctorRow {
  readonly provider: string
  readonly model: string
  readonly endpoint: string
  /** The request dialect detected for a chat endpoint (Dialect.ts); absent for the others. */
  readonly dialect?: string
  readonly latencyMs: number
  /** "ok", or the ProviderError reason. */
  readonly result: string
  /** The error message (keys already scrubbed), when the check failed. */
  readonly detail: string | undefined
}

/** Why `vtree doctor` failed: nothing to check, or at least one provider check did not answer "ok". */
export const DoctorFailedReason = Schema.Literal("NothingConfigured", "ChecksFailed")
export type DoctorFailedReason = typeof DoctorFailedReason.Type

export class DoctorFailed extends Schema.TaggedError<DoctorFailed>()("DoctorFailed", {
  reason: DoctorFailedReason,
  message: Schema.String
}) {}

/** One check as a row: how long `check` took, and "ok" or why it failed (a string: a transport failure). */
export const timed = <R>(
  row: Pick<DoctorRow, "provider" | "model" | "endpoint" | "dialect">,
  check: Effect.Effect<unknown, ProviderError | string, R>
): Effect.Effect<DoctorRow, never, R> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const outcome = yield* Effect.either(check)
    const latencyMs = (yield* Clock.currentTimeMillis) - start
    return outcome._tag === "Right"
      ? { ...row, latencyMs, result: "ok", detail: undefined }
      : typeof outcome.left === "string"
      ? { ...row, latencyMs, result: "Transport", detail: outcome.left }
      : { ...row, latencyMs, result: outcome.left.reason, detail: outcome.left.message.replace(/^[\w-]+: /, "") }
  })

/** A plain aligned table; details of failures follow it, one line each. */
export const formatDoctorTable = (rows: ReadonlyArray<DoctorRow>): string => {
  const header = ["provider", "model", "endpoint", "dialect", "latency", "result"]
  const cells = rows.map((
    row
  ) => [row.provider, row.model, row.endpoint, row.dialect ?? "-", `${row.latencyMs} ms`, row.result])
  const details = rows.flatMap((row) => (row.detail === undefined ? [] : [`${row.provider}: ${row.detail}`]))
  return [...alignColumns([header, ...cells]), ...(details.length > 0 ? ["", ...details] : [])].join("\n")
}

const keyVariables: Record<string, string> = {
  llm: "VTREE_LLM_API_KEY (or OPENAI_API_KEY)",
  "tool-llm": "VTREE_TOOL_LLM_API_KEY",
  vlm: "VTREE_VLM_API_KEY",
  embed: "VTREE_EMBED_API_KEY"
}

/**
 * A warning per role whose key is too short to be real: vtree does not mask such a key in messages
 * (masking `e` would mangle every word with an e in it), so the user should know it is there.
 */
export const suspiciousKeys = (config: ProvidersConfig): ReadonlyArray<string> => {
  const endpoints = [
    ...Option.match(config.llm, { onNone: () => [], onSome: (llm) => [llm.agent, llm.tool] }),
    ...Option.match(config.vlm, { onNone: () => [], onSome: (vlm) => [vlm.endpoint] }),
    ...Option.match(config.embedding, { onNone: () => [], onSome: (embedding) => [embedding.endpoint] })
  ]
  return endpoints
    .filter((endpoint) => Option.exists(endpoint.apiKey, isSuspiciousSecret))
    .map((endpoint) =>
      `warning: the ${endpoint.provider} API key is shorter than ${minimumSecretLength} characters — no provider issues keys ` +
      `that short, and vtree does not mask one in messages; check ${
        keyVariables[endpoint.provider] ?? "its *_API_KEY variable"
      }`
    )
}

/**
 * Each role's settings, loaded on its own: a broken one becomes its own failed row (`Configuration`)
 * and the other roles are still checked.
 */
const loadRoles = Effect.gen(function*() {
  const broken: Array<DoctorRow> = []
  const settle = <A>(provider: string, load: Effect.Effect<Option.Option<A>, ConfigurationError>) =>
    Effect.catchAll(load, (error) =>
      Effect.sync(() => {
        broken.push({
          provider,
          model: "-",
          endpoint: "-",
          latencyMs: 0,
          result: "Configuration",
          detail: error.message
        })
        return Option.none<A>()
      }))
  const config: ProvidersConfig = {
    llm: yield* settle("llm", loadRoleConfigs.llm),
    vlm: yield* settle("vlm", loadRoleConfigs.vlm),
    embedding: yield* settle("embed", loadRoleConfigs.embedding),
    ocr: yield* settle("ocr", loadRoleConfigs.ocr)
  }
  return { config, broken }
})

/**
 * `vtree doctor` without the CLI around it: `runChecks` checks each configured provider (one row each); this prints
 * the table and fails when anything failed.
 */
export const runDoctor = Effect.fn("Doctor.run")(function*<R>(
  runChecks: (config: ProvidersConfig) => Effect.Effect<ReadonlyArray<DoctorRow>, never, R>
) {
  const { broken, config } = yield* loadRoles
  // The embedded OCR is on by default, so on its own it does not make a configuration worth checking.
  const monkeyOcr = Option.exists(config.ocr, (ocr) => ocr.engine === "monkeyocr")
  const configured = monkeyOcr ||
    [config.llm, config.vlm, config.embedding].some((option: Option.Option<unknown>) => Option.isSome(option))
  if (!configured && broken.length === 0) {
    return yield* new DoctorFailed({
      reason: "NothingConfigured",
      message: `no provider is configured: ${configurationHelp}`
    })
  }
  const rows = [...broken, ...(yield* runChecks(config))]
  const warnings = suspiciousKeys(config)
  yield* Console.log([formatDoctorTable(rows), ...(warnings.length > 0 ? ["", ...warnings] : [])].join("\n"))
  const failed = rows.filter((row) => row.result !== "ok")
  if (failed.length > 0) {
    return yield* new DoctorFailed({
      reason: "ChecksFailed",
      message: `${failed.length} of ${rows.length} provider checks failed: ${
        failed.map((row) => `${row.provider} (${row.result})`).join(", ")
      }`
    })
  }
})
