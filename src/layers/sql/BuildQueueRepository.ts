// The statements over `builds` and `build_videos` (migration 0013), on the run store's database: the
// BuildQueue port. Lease times are the database's clock (PostgreSQL's clock_timestamp(), SQLite's
// julianday('now')), never a worker's: a machine whose clock runs ahead takes nothing live. It runs on the
// store's plain SqlClient (raw column names), so the columns are named for the row models with AS.
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Array as Arr, Effect, Layer, Option, type ParseResult, Schema } from "effect"
import { BuildProgress, BuildSettings } from "../../domain/BuildRecord.js"
import { BuildQueue, type VideoClaim } from "../../services/BuildQueue.js"
import { RunStoreError } from "../../services/RunStore.js"
import { defaultOutageSeconds } from "../../services/StoreOutage.js"
import { rideOutOutage, storeFailure } from "./OutageRetry.js"
import { insertBatch } from "./QueueRepository.js"
import { storageError } from "./StorageError.js"
import { makeGuard } from "./StoreContext.js"

const BuildStored = Schema.Struct({
  buildId: Schema.String,
  startedAt: Schema.Number,
  settingsHash: Schema.String,
  settings: Schema.parseJson(BuildSettings),
  videosHash: Schema.String,
  videoCount: Schema.Number
})
const Claimed = Schema.Struct({ videoId: Schema.String, fence: Schema.Number })
const Present = Schema.Struct({ present: Schema.Number })
const Held = Schema.Struct({ held: Schema.Number })
const VideoOfOwner = Schema.Struct({
  buildId: Schema.String,
  videoId: Schema.String,
  ownerId: Schema.String,
  fence: Schema.Number
})

/** The store over the SqlClient provided; `name` names the database in messages (a path, or a URL without its password). */
export const make = Effect.fn("BuildQueueRepository.make")(function*(
  name: string,
  outageSeconds: number = defaultOutageSeconds
) {
  const sql = yield* SqlClient.SqlClient
  // A lost connection is its own failure, asked again while the database is away (VTREE_DB_OUTAGE_SECONDS),
  // as the run store's claims and saves are.
  const guarded = makeGuard(name, storeFailure(sql, name, (what, cause) => storageError(name, what, cause)))
  const rideOut = rideOutOutage(
    name,
    `${outageSeconds} seconds`,
    () => "run the same vtree build command again (finished videos and their calls are kept)"
  )
  const riding =
    (what: string) => <A, R>(effect: Effect.Effect<A, RunStoreError | SqlError | ParseResult.ParseError, R>) =>
      rideOut(what)(guarded(what)(effect))
  // Epoch milliseconds on the database's clock: every lease is set and compared with it.
  const now = sql.onDialectOrElse({
    pg: () => sql.literal("(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"),
    orElse: () => sql.literal("CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)")
  })
  // Row locks of videos another worker is claiming right now are skipped, not waited for; SQLite has one writer.
  const skipLocked = sql.onDialectOrElse({
    pg: () => sql.literal("FOR UPDATE SKIP LOCKED"),
    orElse: () => sql.literal("")
  })

  const hasTables = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Present,
    execute: () =>
      sql.onDialectOrElse({
        pg: () =>
          sql`SELECT COUNT(*)::int AS present FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_name = 'build_videos'`,
        orElse: () => sql`SELECT COUNT(*) AS present FROM sqlite_master WHERE type = 'table' AND name = 'build_videos'`
      })
  })
  const insertBuild = SqlSchema.findAll({
    Request: Schema.Struct({
      buildId: Schema.String,
      settingsHash: Schema.String,
      settingsJson: Schema.String,
      videosHash: Schema.String,
      videoCount: Schema.Number
    }),
    Result: Schema.Struct({ buildId: Schema.String }),
    execute: (row) =>
      sql`INSERT INTO builds (build_id, started_at, settings_hash, settings_json, videos_hash, video_count)
          VALUES (${row.buildId}, ${now}, ${row.settingsHash}, ${row.settingsJson}, ${row.videosHash}, ${row.videoCount})
          ON CONFLICT (build_id) DO NOTHING RETURNING build_id AS "buildId"`
  })
  const insertVideos = SqlSchema.void({
    Request: Schema.Array(Schema.Struct({
      build_id: Schema.String,
      video_id: Schema.String,
      duration_seconds: Schema.Number,
      position: Schema.Number
    })),
    execute: (rows) =>
      Effect.forEach(Arr.chunksOf(rows, insertBatch), (batch) => sql`INSERT INTO build_videos ${sql.insert(batch)}`, {
        discard: true
      })
  })
  const findBuild = SqlSchema.findOne({
    Request: Schema.String,
    Result: BuildStored,
    execute: (buildId) =>
      sql`SELECT build_id AS "buildId", started_at AS "startedAt", settings_hash AS "settingsHash",
                 settings_json AS settings, videos_hash AS "videosHash", video_count AS "videoCount"
          FROM builds WHERE build_id = ${buildId}`
  })
  // The next video picked once, in a materialized CTE: as a subquery of the UPDATE, PostgreSQL may run it again
  // for each row, and a row the statement has just claimed is then skipped, so a second one would be claimed too.
  const takeVideo = SqlSchema.findAll({
    Request: Schema.Struct({ buildId: Schema.String, ownerId: Schema.String, leaseMs: Schema.Number }),
    Result: Claimed,
    execute: ({ buildId, leaseMs, ownerId }) =>
      sql`WITH next AS MATERIALIZED (
            SELECT v.video_id FROM build_videos v
            WHERE v.build_id = ${buildId} AND v.status = 'open' AND (v.claimed_by IS NULL OR v.expires_at <= ${now})
            ORDER BY v.duration_seconds DESC, v.position LIMIT 1 ${skipLocked})
          UPDATE build_videos SET claimed_by = ${ownerId}, fence = fence + 1, heartbeat_at = ${now},
            expires_at = ${now} + ${leaseMs}
          WHERE build_id = ${buildId} AND video_id IN (SELECT video_id FROM next)
          AND status = 'open' AND (claimed_by IS NULL OR expires_at <= ${now})
          RETURNING video_id AS "videoId", fence`
  })
  const heldElsewhere = SqlSchema.findAll({
    Request: Schema.Struct({ buildId: Schema.String, ownerId: Schema.String }),
    Result: Held,
    execute: ({ buildId, ownerId }) =>
      sql`SELECT COUNT(*) AS held FROM build_videos
          WHERE build_id = ${buildId} AND status = 'open' AND claimed_by IS NOT NULL AND claimed_by <> ${ownerId}
          AND expires_at > ${now}`
  })
  const held = (row: typeof VideoOfOwner.Type) =>
    sql`build_id = ${row.buildId} AND video_id = ${row.videoId} AND claimed_by = ${row.ownerId}
        AND fence = ${row.fence} AND status = 'open'`
  const extend = SqlSchema.findAll({
    Request: Schema.Struct({ ...VideoOfOwner.fields, leaseMs: Schema.Number }),
    Result: Claimed,
    execute: (row) =>
      sql`UPDATE build_videos SET heartbeat_at = ${now}, expires_at = ${now} + ${row.leaseMs}
          WHERE ${held(row)} RETURNING video_id AS "videoId", fence`
  })
  const finish = SqlSchema.findAll({
    Request: Schema.Struct({
      ...VideoOfOwner.fields,
      status: Schema.Literal("done", "failed"),
      error: Schema.NullOr(Schema.String)
    }),
    Result: Claimed,
    execute: (row) =>
      // Also a row this very claim already finished: a retry after a COMMIT whose answer the connection lost.
      sql`UPDATE build_videos SET status = ${row.status}, error = ${row.error},
            finished_at = COALESCE(finished_at, ${now}), expires_at = NULL
          WHERE build_id = ${row.buildId} AND video_id = ${row.videoId} AND claimed_by = ${row.ownerId}
          AND fence = ${row.fence} AND (status = 'open' OR status = ${row.status})
          RETURNING video_id AS "videoId", fence`
  })
  const release = SqlSchema.void({
    Request: VideoOfOwner,
    execute: (row) => sql`UPDATE build_videos SET claimed_by = NULL, expires_at = NULL WHERE ${held(row)}`
  })
  const progressOf = SqlSchema.findAll({
    Request: Schema.NullOr(Schema.String),
    Result: BuildProgress,
    execute: (buildId) =>
      sql`SELECT b.build_id AS "buildId", b.started_at AS "startedAt", b.video_count AS videos,
            COALESCE(SUM(CASE WHEN v.status = 'done' THEN 1 ELSE 0 END), 0) AS done,
            COALESCE(SUM(CASE WHEN v.status = 'failed' THEN 1 ELSE 0 END), 0) AS failed,
            COALESCE(SUM(CASE WHEN v.status = 'open' AND v.claimed_by IS NOT NULL AND v.expires_at > ${now}
              THEN 1 ELSE 0 END), 0) AS building,
            COUNT(DISTINCT CASE WHEN v.status = 'open' AND v.expires_at > ${now} THEN v.claimed_by END) AS workers,
            COALESCE(SUM(v.duration_seconds), 0) AS "totalSeconds",
            COALESCE(SUM(CASE WHEN v.status = 'done' THEN v.duration_seconds ELSE 0 END), 0) AS "doneSeconds",
            MAX(v.finished_at) AS "lastFinishedAt"
          FROM builds b LEFT JOIN build_videos v ON v.build_id = b.build_id
          ${buildId === null ? sql`` : sql`WHERE b.build_id = ${buildId}`}
          GROUP BY b.build_id, b.started_at, b.video_count
          ORDER BY b.started_at DESC, b.build_id`
  })

  const claimLost = (buildId: string, videoId: string) =>
    new RunStoreError({
      reason: "ClaimLost",
      message: `${name}: video ${videoId} of build ${buildId} was taken over by another worker (this worker's lease ` +
        `lapsed) — that worker builds it now; this one goes on with another video`
    })
  const ofClaim = (buildId: string, ownerId: string, claim: VideoClaim) => ({
    buildId,
    ownerId,
    videoId: claim.videoId,
    fence: claim.fence
  })

  return BuildQueue.of({
    joinBuild: (input) =>
      Effect.uninterruptible(sql.withTransaction(Effect.gen(function*() {
        const inserted = yield* insertBuild({
          buildId: input.buildId,
          settingsHash: input.settingsHash,
          settingsJson: JSON.stringify(input.settings),
          videosHash: input.videosHash,
          videoCount: input.videos.length
        })
        if (inserted.length > 0) {
          yield* insertVideos(input.videos.map((video, position) => ({
            build_id: input.buildId,
            video_id: video.videoId,
            duration_seconds: video.durationSeconds,
            position
          })))
        }
        const build = yield* findBuild(input.buildId)
        if (Option.isNone(build)) return yield* Effect.dieMessage(`build ${input.buildId} vanished as it was joined`)
        return { build: build.value, created: inserted.length > 0 }
      }))).pipe(riding(`starting or joining build ${input.buildId}`)),
    claimVideo: (buildId, ownerId, leaseMs) =>
      Effect.gen(function*() {
        const [taken] = yield* Effect.uninterruptible(sql.withTransaction(takeVideo({ buildId, ownerId, leaseMs })))
        if (taken !== undefined) {
          return { claim: Option.some({ ...taken, resumed: taken.fence > 1 }), heldByOthers: 0 }
        }
        const [count] = yield* heldElsewhere({ buildId, ownerId })
        return { claim: Option.none(), heldByOthers: count?.held ?? 0 }
      }).pipe(riding(`claiming a video of build ${buildId}`)),
    renewVideo: (buildId, ownerId, claim, leaseMs) =>
      extend({ ...ofClaim(buildId, ownerId, claim), leaseMs }).pipe(
        Effect.flatMap((rows) => rows.length > 0 ? Effect.void : Effect.fail(claimLost(buildId, claim.videoId))),
        riding(`renewing the lease on video ${claim.videoId} of build ${buildId}`)
      ),
    finishVideo: (buildId, ownerId, claim, outcome) =>
      Effect.uninterruptible(finish({
        ...ofClaim(buildId, ownerId, claim),
        status: outcome.status,
        error: outcome.status === "failed" ? outcome.error : null
      })).pipe(
        Effect.flatMap((rows) => rows.length > 0 ? Effect.void : Effect.fail(claimLost(buildId, claim.videoId))),
        riding(`marking video ${claim.videoId} of build ${buildId} finished`)
      ),
    releaseVideo: (buildId, ownerId, claim) =>
      release(ofClaim(buildId, ownerId, claim)).pipe(
        riding(`handing back video ${claim.videoId} of build ${buildId}`)
      ),
    progress: (buildId) =>
      progressOf(buildId).pipe(Effect.map(Arr.head), guarded(`reading the progress of build ${buildId}`)),
    listBuilds: hasTables(undefined).pipe(
      Effect.flatMap((found) =>
        Option.exists(found, ({ present }) => present > 0) ? progressOf(null) : Effect.succeed([])
      ),
      guarded("listing the builds")
    )
  })
})

/** The BuildQueue over the run store's SqlClient (SqliteRunStore.layer and PgRunStore.layer provide it). */
export const layer = (name: string, outageSeconds?: number): Layer.Layer<BuildQueue, never, SqlClient.SqlClient> =>
  Layer.effect(BuildQueue, make(name, outageSeconds))
