import { Effect, Layer, Ref } from "effect"
import { CallLog, type ReportedCall } from "../../services/CallLog.js"

/**
 * A CallLog that keeps every record in memory: for tests, and for runs that do not persist calls.
 * Provide `MemoryCallLog.layer` and read what was recorded with `(yield* MemoryCallLog).entries`.
 */
export class MemoryCallLog extends Effect.Service<MemoryCallLog>()("vtree/MemoryCallLog", {
  effect: Effect.gen(function*() {
    const records = yield* Ref.make<ReadonlyArray<ReportedCall>>([])
    return {
      record: (call: ReportedCall) => Ref.update(records, (all) => [...all, call]),
      /** Every call recorded so far, oldest first. */
      entries: Ref.get(records)
    }
  })
}) {
  /** Provides both the CallLog port and this class (for `entries`), backed by the same records. */
  static readonly layer: Layer.Layer<CallLog | MemoryCallLog> = Layer.effect(
    CallLog,
    Effect.map(MemoryCallLog, (log) => CallLog.of({ record: log.record }))
  ).pipe(Layer.provideMerge(MemoryCallLog.Default))
}
