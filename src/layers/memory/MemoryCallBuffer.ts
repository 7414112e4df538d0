// The CallBuffer adapter `vtree infer` runs with: calls held in memory, per question id, until the
// harness drains them into RunStore.saveQuestion. An adapter of two ports (CallBuffer, CallLog), so it
// lives with the other adapters; programs see only the ports.
import { Context, Effect, Layer } from "effect"
import { CallBuffer, type CallBufferShape } from "../../services/CallBuffer.js"
import { CallLog, type CallRecord, isQuestionCall } from "../../services/CallLog.js"

export const make: Effect.Effect<CallBufferShape> = Effect.sync(() => {
  // Fibers of one runtime never run JavaScript in parallel, so a plain Map needs no lock.
  const buffers = new Map<string | null, Array<CallRecord>>()
  return CallBuffer.of({
    record: (call) =>
      Effect.sync(() => {
        if (!isQuestionCall(call)) return
        const list = buffers.get(call.questionId)
        if (list === undefined) buffers.set(call.questionId, [call])
        else list.push(call)
      }),
    drain: (questionId) =>
      Effect.sync(() => {
        const list = buffers.get(questionId) ?? []
        buffers.delete(questionId)
        return list
      }),
    pending: Effect.sync(() => {
      let total = 0
      for (const list of buffers.values()) total += list.length
      return total
    })
  })
})

/** One buffer, serving both as the CallLog that providers report to and as CallBuffer to drain it. */
export const layer: Layer.Layer<CallBuffer | CallLog> = Layer.effectContext(
  Effect.map(
    make,
    (buffer) => Context.make(CallBuffer, buffer).pipe(Context.add(CallLog, CallLog.of({ record: buffer.record })))
  )
)
