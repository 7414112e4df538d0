/** Where runs are kept: the `RunStore` port (adapters: `SqliteRunStore`, `PgRunStore`) and its rows. */
export type { CallRow, PredictionRow, RunRow, RunStatus, StepInput, StepRow } from "../domain/RunRecord.js"
export { CallBuffer, type CallBufferShape } from "../services/CallBuffer.js"
export {
  type LoadedRun,
  RunStore,
  RunStoreError,
  RunStoreErrorReason,
  type RunStoreShape
} from "../services/RunStore.js"
