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

// Cached prompt tokens and reasoning tokens, per call and summed per question. NULL = the endpoint did
// not report them (and every row written before): "not said" must not read as "nothing cached".
const usageDetails = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE llm_calls ADD COLUMN cached_prompt_tokens INTEGER`
  yield* sql`ALTER TABLE llm_calls ADD COLUMN reasoning_tokens INTEGER`
  yield* sql`ALTER TABLE predictions ADD COLUMN cached_prompt_tokens INTEGER`
  yield* sql`ALTER TABLE predictions ADD COLUMN reasoning_tokens INTEGER`
})

/** Written into the file header (PRAGMA application_id) so vtree knows its own databases: "vtre". */
export const vtreeApplicationId = 0x76747265

// Issue 11: one owner per run, a run is its question set, tokens reported are tokens spent.
// A claim row names the process that may write the run and until when; a `running` run without a
// live claim is stale. Superseded calls are earlier attempts at a re-asked question, kept for the
// token totals.
const runOwnership = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN selection_json TEXT`
  yield* sql`CREATE TABLE run_claims (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    claimed_at INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  )`
  yield* sql`ALTER TABLE llm_calls ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0 CHECK (superseded IN (0, 1))`
  yield* sql.unsafe(`PRAGMA application_id = ${vtreeApplicationId}`)
})

// `budget_stopped` joins the run statuses (infer --max-cost), and predictions keep the question's domain.
// SQLite cannot alter a CHECK constraint: runs is rebuilt from its own current definition (so columns an
// earlier migration added survive), with the status list extended; its indexes are recreated as they
// were. Runs the migrations with foreign keys off (see SqliteRunStore's prepare): dropping the old table
// must not cascade into predictions.
const budgetStopped = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* sql<{ readonly sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'`
  const indexes = yield* sql<{ readonly sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL`
  const create = table!.sql
    .replace(/(status\s+IN\s*\()([^)]*)\)/i, "$1$2, 'budget_stopped')")
    .replace(/^CREATE TABLE\s+("?)runs\1/i, "CREATE TABLE runs_rebuilt")
  yield* sql.unsafe(create)
  yield* sql`INSERT INTO runs_rebuilt SELECT * FROM runs`
  yield* sql`DROP TABLE runs`
  yield* sql`ALTER TABLE runs_rebuilt RENAME TO runs`
  for (const index of indexes) yield* sql.unsafe(index.sql)
  yield* sql`ALTER TABLE predictions ADD COLUMN domain TEXT`
})

/** Keyed `<id>_<name>`; append new entries, never edit applied ones. */
export const migrations = {
  "0001_initial": initial,
  "0002_reply_shapes": replyShapes,
  "0003_usage_details": usageDetails,
  "0004_run_ownership": runOwnership,
  "0005_budget_stopped": budgetStopped
}

/** The newest schema this vtree knows: a database with a later migration was written by a newer vtree. */
export const latestMigrationId = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

// Migrator.make without dumpSchema: fromRecord needs no FileSystem, and schema dumps (the sqlite3 CLI)
// are not wanted at run time; SqliteMigrator.run would demand both in its type.
const runMigrations = SqliteMigrator.make({})

/** Applies pending migrations; already-applied ones are skipped (a table records them). */
export const migrate = runMigrations({ loader: SqliteMigrator.fromRecord(migrations) })

export const MigrationsLive = Layer.effectDiscard(migrate)
