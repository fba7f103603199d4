/**
 * The summary cache on SQL, on Effect 4: one row per summary in the
 * `summary_cache` table, keyed by `SummaryCache.digest` and matched on its
 * namespace, cache-schema version and model as well, run by the shared core's
 * statements (`SqlStatements`), so a summary cached through one face is found
 * through the other. Entries unused for `maxAgeMs` and, past `maxBytes` of
 * summaries, the least recently used are evicted when a summary is stored; the
 * summary stored first for a key stays. A cache never fails compaction: a
 * file that cannot be opened or an operation that fails makes lookups miss
 * and stores skip, with a warning and the reason in `SqlCache.stats`. Effect 4
 * face of `layers/SummaryCacheSql`.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSummaries from "../../src/internal/services/SqlSummaries.js"
import * as SummaryCache from "../services/SummaryCache.js"
import { effect, fx } from "../src/internal/EffectFx.js"
import * as SqliteNode from "./sql/SqliteNode.js"

/**
 * How long an entry may go unused before it is evicted: 30 days.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxAgeMs = 30 * 24 * 60 * 60 * 1000

/**
 * How many bytes of summaries (UTF-8) the cache keeps: 64 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxBytes = 64 * 1024 * 1024

/**
 * How long an operation of the SQLite cache waits for another connection's lock: 1 second.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBusyTimeoutMs = 1_000

/**
 * Options of the SQL cache.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Entries unused for longer are evicted (default `defaultMaxAgeMs`). */
  readonly maxAgeMs?: number | undefined
  /** Total bytes of summaries kept; the least recently used go first (default `defaultMaxBytes`). */
  readonly maxBytes?: number | undefined
  /** The time in milliseconds, for tests; the `Clock` by default. */
  readonly now?: (() => number) | undefined
}

/**
 * Options of the SQLite cache: the cache options and the file.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteOptions extends Options {
  readonly filename: string
  /** How long an operation waits for a lock held by another connection (default `defaultBusyTimeoutMs`). */
  readonly busyTimeoutMs?: number | undefined
}

/**
 * The counters and contents of the cache; `degraded` says why it is not working.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly hits: number
  readonly misses: number
  /** Summaries written. */
  readonly stores: number
  readonly entries: number
  /** Total UTF-8 bytes of the summaries held. */
  readonly bytes: number
  readonly degraded: Option.Option<string>
}

/**
 * What a caller can read back from, and do to, the SQL cache.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly stats: Effect.Effect<Stats>
  /** Applies the age and size eviction now; how many entries it removed. */
  readonly prune: Effect.Effect<{ readonly removed: number }>
}

/**
 * The inspection side of the SQL cache.
 *
 * @since 0.1.0
 * @category tags
 */
export class SqlCache extends Context.Service<SqlCache, Service>()(
  "context-compressor/layers/SummaryCacheSql/SqlCache"
) {}

const makeWith = (options: Options, where: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const summaries = SqlSummaries.make(fx, {
      statement: (statement) => SqliteNode.statement(sql, statement),
      withTransaction: (op) => sql.withTransaction(effect(op)),
      now: options.now === undefined ? Clock.currentTimeMillis : Effect.sync(options.now),
      recover: (op, onFailure) =>
        Effect.catchCause(
          effect(op),
          (cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : effect(onFailure(SqliteNode.describeCause(cause)))
        )
    }, { maxAgeMs: options.maxAgeMs ?? defaultMaxAgeMs, maxBytes: options.maxBytes ?? defaultMaxBytes, where })
    const cache = SummaryCache.make({
      lookup: (key) =>
        Effect.map(
          effect<string | undefined, never>(summaries.lookup(key, SummaryCache.digest(key))),
          Option.fromNullishOr
        ),
      store: (key, summary, storeOptions) =>
        effect<void, never>(summaries.store(key, SummaryCache.digest(key), summary, storeOptions?.replacing))
    })
    const inspection: Service = {
      stats: Effect.map(
        effect<SqlSummaries.Stats, never>(summaries.stats),
        (stats) => ({ ...stats, degraded: Option.fromNullishOr(stats.degraded) })
      ),
      prune: effect<{ readonly removed: number }, never>(summaries.prune)
    }
    return Context.make(SummaryCache.SummaryCache, cache).pipe(Context.add(SqlCache, inspection))
  })

/**
 * A cache that was never opened: every lookup misses, every store is
 * skipped, and `stats.degraded` carries `reason`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeDegraded = (reason: string): Effect.Effect<Context.Context<SummaryCache.SummaryCache | SqlCache>> =>
  Effect.gen(function*() {
    const misses = yield* Ref.make(0)
    const cache = SummaryCache.make({
      lookup: () => Effect.as(Ref.update(misses, (n) => n + 1), Option.none()),
      store: () => Effect.void
    })
    const inspection: Service = {
      stats: Effect.map(
        Ref.get(misses),
        (misses) => ({ hits: 0, misses, stores: 0, entries: 0, bytes: 0, degraded: Option.some(reason) })
      ),
      prune: Effect.succeed({ removed: 0 })
    }
    return Context.make(SummaryCache.SummaryCache, cache).pipe(Context.add(SqlCache, inspection))
  })

/**
 * Builds the cache on the current `SqlClient` and its inspection service. The schema must be there.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Context.Context<SummaryCache.SummaryCache | SqlCache>, never, SqlClient.SqlClient> =>
  makeWith(options, "(SQL database)")

/**
 * Provides the `SummaryCache` on the current `SqlClient`, and the `SqlCache`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<SummaryCache.SummaryCache | SqlCache, never, SqlClient.SqlClient> => Layer.effectContext(make(options))

/**
 * Provides the `SummaryCache` in a SQLite file on `node:sqlite`, opened and
 * migrated by the layer, and the `SqlCache`. The layer always builds: a file
 * that cannot be opened gives a cache that misses, with a warning.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<SummaryCache.SummaryCache | SqlCache> =>
  Layer.effectContext(
    Effect.gen(function*() {
      const opened = yield* Effect.result(
        SqliteNode.open({ filename: options.filename, busyTimeoutMs: options.busyTimeoutMs ?? defaultBusyTimeoutMs })
      )
      if (Result.isFailure(opened)) {
        const { path, reason } = opened.failure
        yield* Effect.logWarning(
          `summary cache ${path} cannot be used (${reason}): compaction continues without a cache, and the file is left as it is`
        )
        return yield* makeDegraded(`cannot open ${path}: ${reason}`)
      }
      return yield* Effect.provideService(makeWith(options, options.filename), SqlClient.SqlClient, opened.success)
    })
  )
