// The statements over what questions leave behind: `predictions`, `steps` and `llm_calls`.
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Array as Arr, Effect, Schema } from "effect"
import { RunTally } from "../../domain/RunRecord.js"
import { insertBatch } from "./QueueRepository.js"
import {
  CallInsert,
  CallStored,
  PredictionInsert,
  PredictionStored,
  QuestionKey,
  StepInsert,
  StepStored
} from "./Rows.js"
import type { StoreContext } from "./StoreContext.js"

export const answerRepository = ({ facts, sql }: StoreContext) => {
  const QuestionOfRun = Schema.Struct({ runId: Schema.String, questionId: Schema.String })

  return {
    questionIds: SqlSchema.findAll({
      Request: Schema.Struct({ runId: Schema.String, exceptErrors: Schema.Boolean }),
      Result: QuestionKey,
      execute: ({ exceptErrors, runId }) =>
        exceptErrors
          ? sql`SELECT question_id FROM predictions WHERE run_id = ${runId} AND stop_reason <> 'error'`
          : sql`SELECT question_id FROM predictions WHERE run_id = ${runId}`
    }),
    // The earlier attempt's calls stay, superseded: tokens reported are tokens spent.
    supersedeCalls: SqlSchema.void({
      Request: QuestionOfRun,
      execute: ({ questionId, runId }) =>
        sql`UPDATE llm_calls SET superseded = 1 WHERE run_id = ${runId} AND question_id = ${questionId}`
    }),
    deleteSteps: SqlSchema.void({
      Request: QuestionOfRun,
      execute: ({ questionId, runId }) => sql`DELETE FROM steps WHERE run_id = ${runId} AND question_id = ${questionId}`
    }),
    // An update in place, not a delete: deleting the prediction would cascade to its calls, and the
    // calls of an earlier attempt are kept (superseded).
    upsertPrediction: SqlSchema.void({
      Request: PredictionInsert,
      execute: (row) =>
        sql`INSERT INTO predictions ${sql.insert(row)}
            ON CONFLICT (run_id, question_id) DO UPDATE SET ${sql.update(row, ["runId", "questionId"])}`
    }),
    insertSteps: SqlSchema.void({
      Request: Schema.Array(StepInsert),
      execute: (rows) =>
        Effect.forEach(Arr.chunksOf(rows, insertBatch), (batch) => sql`INSERT INTO steps ${sql.insert(batch)}`, {
          discard: true
        })
    }),
    insertCalls: SqlSchema.void({
      Request: Schema.Array(CallInsert),
      execute: (rows) =>
        Effect.forEach(Arr.chunksOf(rows, insertBatch), (batch) => sql`INSERT INTO llm_calls ${sql.insert(batch)}`, {
          discard: true
        })
    }),
    // Right means keyed, answered and marked correct: the report's outcome rule (Report.outcomeOf). An
    // open-ended question (options '[]') is scored by judges, never keyed by letter.
    tallies: SqlSchema.findAll({
      Request: Schema.Void,
      Result: RunTally,
      execute: () =>
        facts.empty ? sql`SELECT 1 WHERE 1 = 0` : sql`
          SELECT run_id, COUNT(*) AS saved,
            SUM(CASE WHEN answer IS NOT NULL AND options_json <> '[]' THEN 1 ELSE 0 END) AS keyed,
            SUM(CASE WHEN answer IS NOT NULL AND options_json <> '[]' AND prediction IS NOT NULL AND correct = 1
              THEN 1 ELSE 0 END) AS correct,
            MAX(finished_at) AS last_saved_at
          FROM predictions GROUP BY run_id`
    }),
    predictionsOf: SqlSchema.findAll({
      Request: Schema.String,
      Result: PredictionStored,
      execute: (runId) => sql`SELECT * FROM predictions WHERE run_id = ${runId} ORDER BY question_id`
    }),
    stepsOf: SqlSchema.findAll({
      Request: Schema.String,
      Result: StepStored,
      execute: (runId) => sql`SELECT * FROM steps WHERE run_id = ${runId} ORDER BY question_id, step`
    }),
    callsOf: SqlSchema.findAll({
      Request: Schema.String,
      Result: CallStored,
      execute: (runId) => sql`SELECT * FROM llm_calls WHERE run_id = ${runId} ORDER BY call_id`
    })
  }
}

export type AnswerRepository = ReturnType<typeof answerRepository>
