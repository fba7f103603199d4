/**
 * One worker of the fleet benchmark (`fleet.bench.ts` starts eight): the
 * engine on the production SQL layers over the PostgreSQL database of
 * `FLEET_DATABASE_URL` (or, with `FLEET_MODE=private`, on a memory cache and
 * store of its own, as a worker that shares nothing), the o200k_base
 * tokenizer, and the offline summariser behind an artificial latency,
 * counting its calls. It prints `ready` once
 * connected, then for each `round <n>` line on stdin makes that round's
 * checkpoints (four at a time) and prints `done <json>` (`RoundReport`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Readline from "node:readline"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as AttentionUnattended from "../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../src/face/layers/CompactionStoreMemory.js"
import * as CompactionStoreSql from "../src/face/layers/CompactionStoreSql.js"
import * as SettingsFixed from "../src/face/layers/SettingsFixed.js"
import * as SqlPg from "../src/face/layers/sql/SqlPg.js"
import * as SummarizerOffline from "../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../src/face/layers/SummaryCacheMemory.js"
import * as SummaryCacheSql from "../src/face/layers/SummaryCacheSql.js"
import * as TokenizerBpe from "../src/face/layers/TokenizerBpe.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as CompactionStore from "../src/face/services/CompactionStore.js"
import * as Summarizer from "../src/face/services/Summarizer.js"
import * as SummaryCache from "../src/face/services/SummaryCache.js"
import * as Plan from "./fleet.plan.js"

const url = process.env["FLEET_DATABASE_URL"]
const worker = Number(process.env["FLEET_WORKER"])
const shared = process.env["FLEET_MODE"] !== "private"
if (url === undefined || !Number.isInteger(worker)) throw new Error("FLEET_DATABASE_URL and FLEET_WORKER are required")

const counters = {
  summarizerCalls: 0,
  lookups: 0,
  cacheHits: 0,
  saved: {} as Record<string, number>,
  conflicts: {} as Record<string, number>
}
const looked = new Set<string>()
const bump = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1)

const summarizer = Layer.effect(
  Summarizer.Summarizer,
  Effect.map(Effect.provide(Summarizer.Summarizer, SummarizerOffline.layer), (offline) => ({
    summarize: (request: Summarizer.SummaryRequest) =>
      Effect.zipRight(
        Effect.sync(() => counters.summarizerCalls++).pipe(Effect.zipRight(Effect.sleep(Plan.summarizerLatencyMs))),
        offline.summarize(request)
      )
  }))
)

const innerCache: Layer.Layer<SummaryCache.SummaryCache, never, SqlClient.SqlClient> = shared
  ? SummaryCacheSql.layer()
  : SummaryCacheMemory.layer
const innerStore: Layer.Layer<CompactionStore.CompactionStore, never, SqlClient.SqlClient> = shared
  ? CompactionStoreSql.layer
  : CompactionStoreMemory.layer

/** The cache, counting lookups, hits and the distinct summaries looked up. */
const cache = Layer.effect(
  SummaryCache.SummaryCache,
  Effect.map(SummaryCache.SummaryCache, (inner) => ({
    lookup: (key: SummaryCache.Key) =>
      Effect.tap(inner.lookup(key), (found) =>
        Effect.sync(() => {
          counters.lookups++
          looked.add(SummaryCache.digest(key))
          if (Option.isSome(found)) counters.cacheHits++
        })),
    store: inner.store
  }))
).pipe(Layer.provide(innerCache))

/** The store, counting the versioned saves that won and lost. */
const store = Layer.effect(
  CompactionStore.CompactionStore,
  Effect.map(CompactionStore.CompactionStore, (inner) => ({
    ...inner,
    saveIfCurrent: (state: CompactionStore.CompactionState, expected: number) =>
      Effect.tap(
        inner.saveIfCurrent(state, expected),
        (outcome) =>
          Effect.sync(() => bump(outcome._tag === "Saved" ? counters.saved : counters.conflicts, state.sessionId))
      )
  }))
).pipe(Layer.provide(innerStore))

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provide(
    Layer.mergeAll(summarizer, cache, store, SettingsFixed.layer(), TokenizerBpe.layer, AttentionUnattended.layer).pipe(
      Layer.provide(SqlPg.layer({ url, maxConnections: 4, applicationName: `fleet-worker-${worker}` }))
    )
  )
)

const runtime = ManagedRuntime.make(engine)
const planned = Plan.sessions()

const attempts = (of: { readonly saved: Record<string, number>; readonly conflicts: Record<string, number> }): number =>
  [...Object.values(of.saved), ...Object.values(of.conflicts)].reduce((total, n) => total + n, 0)

const round = (index: number) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const before = { ...counters, saved: { ...counters.saved }, conflicts: { ...counters.conflicts } }
    const compacted: Record<string, number> = {}
    const failures: Array<string> = []
    const jobs = Plan.jobsOf(planned, worker, index)
    yield* Effect.forEach(jobs, (job) => {
      const { sessionId, transcript } = planned[job.session]!
      return compactor.checkpoint({
        sessionId,
        transcript: transcript.slice(0, job.prefix),
        model: "fleet-model",
        contextWindow: Plan.contextWindow
      }).pipe(
        Effect.tap((result) =>
          Option.match(result.compacted, {
            onNone: () => Effect.void,
            onSome: () => Effect.sync(() => bump(compacted, sessionId))
          })
        ),
        Effect.catchAll((error) =>
          Effect.sync(() => void failures.push(`${sessionId}: ${error.reason}: ${error.message}`))
        )
      )
    }, { concurrency: 4, discard: true })
    const delta = (now: Record<string, number>, then: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(now).flatMap((
          [key, value]
        ) => (value - (then[key] ?? 0) > 0 ? [[key, value - (then[key] ?? 0)]] : []))
      )
    const report: Plan.RoundReport = {
      worker,
      round: index,
      checkpoints: jobs.length,
      failures,
      compacted,
      saved: delta(counters.saved, before.saved),
      conflicts: delta(counters.conflicts, before.conflicts),
      summarizerCalls: counters.summarizerCalls - before.summarizerCalls,
      lookups: counters.lookups - before.lookups,
      cacheHits: counters.cacheHits - before.cacheHits,
      // Every compaction that got to its versioned save needed a summary: those that did not look one up shared one in flight.
      sharedInFlight: Math.max(0, attempts(counters) - attempts(before) - (counters.lookups - before.lookups)),
      distinctLookups: looked.size
    }
    return report
  })

const main = async () => {
  // Connected, migrated and the tokenizer loaded before the clock starts.
  await runtime.runPromise(Effect.map(Compactor.Compactor, () => undefined))
  await Effect.runPromise(Effect.map(TokenizerBpe.make, (bpe) => bpe.count("warm up the tokenizer")))
  process.stdout.write("ready\n")
  const lines = Readline.createInterface({ input: process.stdin })
  for await (const line of lines) {
    const match = /^round (\d+)$/.exec(line.trim())
    if (match === null) break
    const report = await runtime.runPromise(round(Number(match[1])))
    process.stdout.write(`done ${JSON.stringify(report)}\n`)
  }
  await runtime.dispose()
  process.exit(0)
}

main().catch((error) => {
  process.stderr.write(`worker ${worker}: ${String(error)}\n`)
  process.exit(1)
})
