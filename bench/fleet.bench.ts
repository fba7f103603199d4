/**
 * A fleet of 8 worker processes (`fleet.worker.ts`) compacting a shared set of
 * 16 generated sessions against one PostgreSQL database (`fleet.plan.ts`):
 * each session is served by 3 workers in every round, a quarter of the
 * deliveries twice, with a summariser of 25 ms latency that counts its calls.
 *
 * The same work runs twice: the fleet sharing its cache and states in the
 * database, then a fleet whose workers share nothing (a memory cache and
 * store each). Reports the throughput (checkpoints a second, wall time of
 * the rounds), the summariser calls made, against those a cache of each
 * worker's own would have made with the states still shared (the distinct
 * summaries each looked up) and those the fleet sharing nothing made, and
 * checks that no state was lost or duplicated: one row per session, which
 * decodes, whose `compactions` equals the versioned saves that won (and the
 * compactions the workers reported), its block numbered the same.
 *
 * It starts its own throwaway PostgreSQL (as the tests do), or uses
 * `CONTEXT_COMPRESSOR_BENCH_DATABASE_URL` (a database it may create tables in);
 * without either it says so and ends. Run: `npx tsx bench/fleet.bench.ts`.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as CompactionStoreSql from "../src/face/layers/CompactionStoreSql.js"
import * as SqlPg from "../src/face/layers/sql/SqlPg.js"
import * as CompactionStore from "../src/face/services/CompactionStore.js"
import * as PostgresCluster from "../test/support/PostgresCluster.js"
import * as Plan from "./fleet.plan.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const workerScript = fileURLToPath(new URL("./fleet.worker.ts", import.meta.url))

interface Worker {
  readonly child: ChildProcessWithoutNullStreams
  /** The next line the worker prints. */
  readonly next: () => Promise<string>
}

type Mode = "shared" | "private"

const startWorker = (index: number, url: string, mode: Mode): Worker => {
  const child = spawn(process.execPath, ["--import", "tsx", workerScript], {
    cwd: root,
    env: { ...process.env, FLEET_DATABASE_URL: url, FLEET_WORKER: String(index), FLEET_MODE: mode },
    stdio: ["pipe", "pipe", "pipe"]
  })
  const lines: Array<string> = []
  const waiting: Array<(line: string) => void> = []
  let buffered = ""
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk
    let newline: number
    while ((newline = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      const taker = waiting.shift()
      if (taker !== undefined) taker(line)
      else lines.push(line)
    }
  })
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`worker ${index} exited with ${code}: ${stderr.trim()}`)))
  )
  exited.catch(() => {})
  return {
    child,
    next: () => {
      const line = lines.shift()
      return line !== undefined
        ? Promise.resolve(line)
        : Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), exited])
    }
  }
}

const sum = (values: ReadonlyArray<number>): number => values.reduce((total, value) => total + value, 0)

const addInto = (target: Record<string, number>, source: Record<string, number>) => {
  for (const [key, value] of Object.entries(source)) target[key] = (target[key] ?? 0) + value
}

/** The stored states, read back through the store: one row each, decoded. */
const verify = (url: string, sessionIds: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly session_id: string; readonly rows: unknown; readonly compactions: number }>`
      SELECT session_id, COUNT(*) AS rows, MAX(compactions) AS compactions FROM compaction_state GROUP BY session_id ORDER BY session_id`
    const store = yield* CompactionStoreSql.make
    const states = yield* Effect.forEach(sessionIds, (sessionId) =>
      Effect.map(store.load(sessionId), (state) => [sessionId, state] as const))
    return { rows, states }
  }).pipe(
    Effect.provide(Layer.orDie(PgClient.layer({ url: Redacted.make(url) }))),
    Effect.provide(Reactivity.layer)
  )

interface FleetRun {
  readonly reports: ReadonlyArray<Plan.RoundReport>
  readonly seconds: number
}

/** Runs the plan on 8 fresh workers, round by round, and gathers their reports. */
const runFleet = async (url: string, mode: Mode): Promise<FleetRun> => {
  const planned = Plan.sessions()
  const rounds = Plan.rounds(planned)
  const workers: Array<Worker> = []
  try {
    for (let index = 0; index < Plan.workers; index++) workers.push(startWorker(index, url, mode))
    for (const worker of workers) {
      const line = await worker.next()
      if (line !== "ready") throw new Error(`a worker said ${line}`)
    }
    const reports: Array<Plan.RoundReport> = []
    const started = performance.now()
    for (let round = 0; round < rounds; round++) {
      for (const worker of workers) worker.child.stdin.write(`round ${round}\n`)
      for (const worker of workers) {
        const line = await worker.next()
        if (!line.startsWith("done ")) throw new Error(`a worker said ${line}`)
        reports.push(JSON.parse(line.slice(5)) as Plan.RoundReport)
      }
    }
    const seconds = (performance.now() - started) / 1_000
    for (const worker of workers) worker.child.stdin.end()
    return { reports, seconds }
  } finally {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill("SIGKILL")
  }
}

const totals = (run: FleetRun) => {
  const { reports } = run
  const compacted: Record<string, number> = {}
  const saved: Record<string, number> = {}
  const conflicts: Record<string, number> = {}
  for (const report of reports) {
    addInto(compacted, report.compacted)
    addInto(saved, report.saved)
    addInto(conflicts, report.conflicts)
  }
  return {
    checkpoints: sum(reports.map((r) => r.checkpoints)),
    failures: reports.flatMap((r) => r.failures),
    compacted,
    saved,
    conflicts,
    calls: sum(reports.map((r) => r.summarizerCalls)),
    lookups: sum(reports.map((r) => r.lookups)),
    hits: sum(reports.map((r) => r.cacheHits)),
    shared: sum(reports.map((r) => r.sharedInFlight)),
    ownCacheCalls: sum(
      Array.from({ length: Plan.workers }, (_, worker) =>
        Math.max(
          0,
          ...reports.filter((r) => r.worker === worker).map((r) => r.distinctLookups)
        ))
    ),
    throughput: sum(reports.map((r) => r.checkpoints)) / run.seconds
  }
}

const main = async () => {
  const given = process.env["CONTEXT_COMPRESSOR_BENCH_DATABASE_URL"]
  let cluster: PostgresCluster.Cluster | undefined
  let url: string
  if (given !== undefined && given.trim() !== "") {
    url = given.trim()
  } else {
    const available = PostgresCluster.availability()
    if (!available.available) {
      console.log(
        `fleet bench: skipped, no PostgreSQL (${available.reason}); or set CONTEXT_COMPRESSOR_BENCH_DATABASE_URL`
      )
      return
    }
    cluster = await PostgresCluster.start()
    url = cluster.url
  }
  try {
    // A fresh schema: the tables of an earlier run would be counted.
    await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(
          SqlPg.open({ url }),
          (sql) =>
            sql`DROP TABLE IF EXISTS compaction_state, summary_cache, settings_overrides, context_compressor_migrations`
        )
      )
    )
    const planned = Plan.sessions()
    console.log(
      `context-compressor fleet: ${Plan.workers} worker processes, ${planned.length} sessions of ${Plan.sessionLength} messages, ${
        Plan.rounds(planned)
      } rounds ` +
        `(each session checkpointed by ${Plan.servedBy} workers a round, a quarter of deliveries twice, 4 at a time a worker), window ${
          Plan.contextWindow.toLocaleString("en-US")
        } tokens, ` +
        `o200k_base, offline summariser + ${Plan.summarizerLatencyMs} ms latency, PostgreSQL ${
          cluster === undefined ? SqlPg.redact(url) : "15 throwaway server"
        }`
    )
    const shared = totals(await runFleet(url, "shared"))
    const isolated = totals(await runFleet(url, "private"))
    const sessionIds = planned.map((each) => each.sessionId)
    const { rows, states } = await Effect.runPromise(verify(url, sessionIds))

    const problems: Array<string> = [...shared.failures.map((failure) => `checkpoint failed: ${failure}`)]
    for (const row of rows) if (Number(row.rows) !== 1) problems.push(`${row.session_id}: ${row.rows} rows`)
    for (const [sessionId, state] of states) {
      const won = shared.saved[sessionId] ?? 0
      if (Option.isNone(state)) {
        if (won > 0) problems.push(`${sessionId}: ${won} saves won, no state`)
        continue
      }
      const { block, compactions } = state.value as CompactionStore.CompactionState
      if (compactions !== won) problems.push(`${sessionId}: compactions ${compactions}, saves won ${won}`)
      if ((shared.compacted[sessionId] ?? 0) !== won) {
        problems.push(`${sessionId}: ${shared.compacted[sessionId] ?? 0} compactions reported, ${won} saves won`)
      }
      if (block.id !== `compacted-${compactions}`) {
        problems.push(`${sessionId}: block ${block.id} in a state of ${compactions} compactions`)
      }
    }

    const percent = (part: number, whole: number) => (whole === 0 ? "0" : ((part / whole) * 100).toFixed(0))
    console.log("")
    console.log("sharing the database (cache and states in PostgreSQL):")
    console.log(`  checkpoints         ${shared.checkpoints}: ${shared.throughput.toFixed(1)} checkpoints/s`)
    console.log(
      `  compactions saved   ${sum(Object.values(shared.saved))}; versioned saves that lost to another worker ${
        sum(Object.values(shared.conflicts))
      } (each loser took the winner's state)`
    )
    const attempts = sum(Object.values(shared.saved)) + sum(Object.values(shared.conflicts))
    console.log(
      `  summaries needed    ${attempts}: ${shared.shared} shared with a compaction in flight in the same process, ${shared.hits} found in the shared cache`
    )
    console.log(
      `  summariser calls    ${shared.calls}; with a cache of each worker's own ${shared.ownCacheCalls} (${
        percent(shared.ownCacheCalls - shared.calls, shared.ownCacheCalls)
      } % saved)`
    )
    console.log(
      `  states              ${
        states.filter(([, state]) => Option.isSome(state)).length
      } sessions, ${rows.length} rows: ${
        problems.length === 0
          ? "none lost or duplicated; each decodes, its compactions equal the saves that won"
          : `${problems.length} problems:`
      }`
    )
    for (const problem of problems.slice(0, 20)) console.log(`    ${problem}`)
    console.log("sharing nothing (a memory cache and store a worker):")
    console.log(`  checkpoints         ${isolated.checkpoints}: ${isolated.throughput.toFixed(1)} checkpoints/s`)
    console.log(`  compactions         ${sum(Object.values(isolated.saved))}`)
    console.log(
      `  summariser calls    ${isolated.calls} (sharing saves ${
        percent(isolated.calls - shared.calls, isolated.calls)
      } %)`
    )
    if (problems.length > 0) process.exitCode = 1
  } finally {
    await cluster?.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
