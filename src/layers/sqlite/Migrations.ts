import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import { Effect, Layer } from "effect"

// Times are epoch milliseconds (CallRecord's unit), so durations are plain subtraction in SQL and JS.
// steps and question-bound llm_calls cascade from their prediction: replacing a prediction replaces them.
const initial = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE runs (
    run_id TEXT PRIMARY KEY NOT NULL,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
    config_json TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX runs_started_at ON runs (started_at)`
  yield* sql`CREATE TABLE predictions (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    video_id TEXT NOT NULL,
    task_type TEXT,
    duration TEXT,
    question TEXT NOT NULL,
    options_json TEXT NOT NULL,
    answer TEXT,
    prediction TEXT,
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    evidence TEXT,
    reasoning TEXT,
    steps_used INTEGER NOT NULL,
    stop_reason TEXT NOT NULL CHECK (stop_reason IN ('finished', 'budget_exceeded', 'parse_error', 'error')),
    error TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, question_id)
  )`
  // The report groups by these within a run.
  yield* sql`CREATE INDEX predictions_task_type ON predictions (run_id, task_type)`
  yield* sql`CREATE INDEX predictions_duration ON predictions (run_id, duration)`
  yield* sql`CREATE TABLE steps (
    run_id TEXT NOT NULL,
    question_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    tool TEXT NOT NULL,
    args_json TEXT NOT NULL,
    output TEXT NOT NULL,
    thought TEXT,
    reflect_json TEXT NOT NULL,
    plan_json TEXT NOT NULL,
    PRIMARY KEY (run_id, question_id, step),
    FOREIGN KEY (run_id, question_id) REFERENCES predictions (run_id, question_id) ON DELETE CASCADE
  )`
  yield* sql`CREATE TABLE llm_calls (
    call_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    question_id TEXT,
    parent_step INTEGER,
    role TEXT NOT NULL CHECK (role IN ('agent', 'tool', 'vlm', 'embed', 'ocr')),
    model TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    error_reason TEXT,
    FOREIGN KEY (run_id, question_id) REFERENCES predictions (run_id, question_id) ON DELETE CASCADE
  )`
  yield* sql`CREATE INDEX llm_calls_question ON llm_calls (run_id, question_id)`
  yield* sql`CREATE INDEX llm_calls_role ON llm_calls (run_id, role)`
})

// How the parser read each reply (DESIGN issue #16): rows written before read as no shapes.
const replyShapes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE steps ADD COLUMN reply_shapes TEXT NOT NULL DEFAULT ''`
  yield* sql`ALTER TABLE predictions ADD COLUMN reply_shapes_json TEXT NOT NULL DEFAULT '{}'`
})

// Which replica of a role's endpoints served each call (several base URLs per role, issue 15).
const callEndpoint = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE llm_calls ADD COLUMN endpoint TEXT`
})

/** Keyed `<id>_<name>`; append new entries, never edit applied ones. */
export const migrations = {
  "0001_initial": initial,
  "0002_reply_shapes": replyShapes,
  "0006_call_endpoint": callEndpoint
}

// Migrator.make without dumpSchema: fromRecord needs no FileSystem, and schema dumps (the sqlite3 CLI)
// are not wanted at run time; SqliteMigrator.run would demand both in its type.
const runMigrations = SqliteMigrator.make({})

/** Applies pending migrations; already-applied ones are skipped (a table records them). */
export const migrate = runMigrations({ loader: SqliteMigrator.fromRecord(migrations) })

export const MigrationsLive = Layer.effectDiscard(migrate)
