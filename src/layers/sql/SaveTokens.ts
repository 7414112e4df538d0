// A save's token beside the prediction it wrote: a save asked again after its COMMIT went unacknowledged
// (the connection lost on the way back) finds its own token and writes nothing twice.
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import type { StoreContext } from "./StoreContext.js"

const Token = Schema.Struct({ runId: Schema.String, questionId: Schema.String, token: Schema.String })

export const saveTokens = ({ sql }: StoreContext) => {
  const find = SqlSchema.findOne({
    Request: Token,
    Result: Schema.Struct({ questionId: Schema.String }),
    execute: ({ questionId, runId, token }) =>
      sql`SELECT question_id FROM predictions WHERE run_id = ${runId} AND question_id = ${questionId}
          AND save_token = ${token}`
  })
  return {
    /** Whether the question's prediction was written by the save holding `token`. */
    savedWith: (request: typeof Token.Type) => Effect.map(find(request), Option.isSome),
    keep: SqlSchema.void({
      Request: Token,
      execute: ({ questionId, runId, token }) =>
        sql`UPDATE predictions SET save_token = ${token} WHERE run_id = ${runId} AND question_id = ${questionId}`
    })
  }
}

export type SaveTokens = ReturnType<typeof saveTokens>
