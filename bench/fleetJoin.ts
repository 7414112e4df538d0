// Joining a run of 1 M questions on PostgreSQL (issue 42): what a worker that joins a shared run pays (its claim
// and the check of its question set) and what the progress read every worker makes every 5 s costs, beside the
// queue-counting query it replaced, measured in the same run. Prints a markdown section for BENCHMARKS.md.
//   npx tsx bench/fleetJoin.ts [questions]
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Redacted } from "effect"
import * as os from "node:os"
import * as PgRunStore from "../src/layers/sql/postgres/PgRunStore.js"
import { RunStore } from "../src/services/RunStore.js"
import * as Postgres from "../test/support/postgres/index.js"
import { median } from "./stats.js"

const count = Number(process.argv[2] ?? 1_000_000)
const ids = Array.from({ length: count }, (_, i) => `q${String(i).padStart(7, "0")}`)
const owner = (name: string) => ({ ownerId: `${name}:1:bench`, host: name, pid: 1 })

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = performance.now()
    const value = yield* effect
    return { value, ms: performance.now() - start }
  })

const open = (url: string) =>
  Effect.map(
    Layer.build(PgRunStore.layer({ url: Redacted.make(url), maxConnections: 4 })),
    (context) => ({ store: Context.get(context, RunStore), sql: Context.get(context, SqlClient.SqlClient) })
  )

// The progress query every worker ran before 0013: the queue's rows counted, 1 M of them.
const countedProgress = (sql: SqlClient.SqlClient) =>
  sql`SELECT q.run_id, COUNT(*) AS total, SUM(q.done) AS done,
        SUM(CASE WHEN q.done = 0 AND c.owner_id IS NOT NULL THEN 1 ELSE 0 END) AS claimed
      FROM run_questions q
      LEFT JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by
        AND c.expires_at > (EXTRACT(EPOCH FROM now()) * 1000)::bigint
      WHERE q.run_id = 'r' GROUP BY q.run_id`

// The progress query every worker runs now (QueueRepository.progressOf): the kept counts and the held few.
const keptProgress = (sql: SqlClient.SqlClient) =>
  sql`SELECT r.run_id, r.question_count AS total, r.done_count AS done,
        (SELECT COUNT(*) FROM run_questions q JOIN run_claims c ON c.run_id = q.run_id AND c.owner_id = q.claimed_by
         WHERE q.run_id = r.run_id AND q.done = 0 AND q.claimed_by IS NOT NULL
         AND c.expires_at > (EXTRACT(EPOCH FROM now()) * 1000)::bigint) AS claimed
      FROM run_queues r WHERE r.run_id = 'r'`

const program = (url: string) =>
  Effect.gen(function*() {
    const creator = yield* open(url)
    yield* creator.store.startRun({ runId: "r", config: {}, owner: owner("creator"), leaseMs: 600_000 })
    const plan = yield* timed(creator.store.planQuestions("r", ids))
    // A run under way: a few hundred questions held by the creator, some saved.
    yield* creator.store.claimQuestions("r", owner("creator").ownerId, 8).pipe(Effect.repeatN(63))
    const joins: Array<number> = []
    for (const name of ["w1", "w2", "w3"]) {
      const worker = yield* open(url)
      const join = yield* timed(Effect.zipRight(
        worker.store.claimRun({ runId: "r", owner: owner(name), leaseMs: 600_000 }),
        worker.store.planQuestions("r", ids)
      ))
      joins.push(join.ms)
    }
    const reads: Array<number> = []
    for (let i = 0; i < 30; i++) reads.push((yield* timed(creator.store.getRun("r"))).ms)
    const kept: Array<number> = []
    for (let i = 0; i < 30; i++) kept.push((yield* timed(keptProgress(creator.sql))).ms)
    const counted: Array<number> = []
    for (let i = 0; i < 5; i++) counted.push((yield* timed(countedProgress(creator.sql))).ms)
    const run = yield* creator.store.getRun("r")
    return { plan: plan.ms, joins, reads, kept, counted, progress: run._tag === "Some" ? run.value.progress : null }
  }).pipe(Effect.scoped)

const main = async () => {
  const cluster = await Postgres.start({ durable: true })
  try {
    const url = await cluster.createDatabase("fleet")
    // What `uptime` says, read from the kernel the same way.
    const load = `load average: ${os.loadavg().map((n) => n.toFixed(2)).join(", ")} (${os.cpus().length} cores)`
    const r = await Effect.runPromise(program(url))
    const fmt = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0))
    console.log([
      `Questions: ${count.toLocaleString("en")}; PostgreSQL 15 (throwaway cluster, durable), load: \`${load}\`.`,
      "",
      "| | before (issue 42) | now |",
      "|---|---|---|",
      `| creator plans the set (inserts ${count.toLocaleString("en")} ids, counts once) | — | ${fmt(r.plan)} ms |`,
      `| a worker joins (claimRun + planQuestions of the same set), 3 workers | 17.2 s (re-inserting every id) | ${
        r.joins.map(fmt).join(", ")
      } ms |`,
      `| progress read (getRun: run, claims, progress), median of 30 | 347–637 ms | ${fmt(median(r.reads))} ms (max ${
        fmt(Math.max(...r.reads))
      }) |`,
      `| its progress query alone (kept counts + held questions), median of 30 | | ${fmt(median(r.kept))} ms |`,
      `| the old counting query, same database, median of 5 | | ${fmt(median(r.counted))} ms |`,
      "",
      `Progress read back: ${JSON.stringify(r.progress)}.`
    ].join("\n"))
  } finally {
    await cluster.stop()
  }
}

void main()
