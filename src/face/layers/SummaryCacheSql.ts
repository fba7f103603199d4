/**
 * The summary cache on SQL (SPEC R2.10): one row per summary in the
 * `summary_cache` table, keyed by `SummaryCache.digest` and matched on its
 * namespace, cache-schema version and model as well, so an entry written for
 * another prompt, rendering or model is never returned and no reset is ever
 * needed. Entries unused for `maxAgeMs` and, past `maxBytes` of summaries,
 * the least recently used ones are evicted when a summary is stored. The
 * summary stored first for a key stays: workers sharing one database that
 * asked for the same summary at once all read back the same one.
 *
 * A cache never fails compaction: a database that cannot be opened (corrupt,
 * locked, unwritable) or an operation that fails makes lookups miss and stores
 * skip, with a warning in the log and the reason in `SqlCache.stats`; the file
 * is left as it is.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as SqlStatements from "../../core/services/SqlStatements.js"
import * as SummaryCache from "../services/SummaryCache.js"
import * as SqlSummaries from "./internal/SqlSummaries.js"
import * as SqlMigrations from "./sql/SqlMigrations.js"

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
 * How long an operation of the SQLite cache waits for another connection's
 * lock before it gives up (and misses or skips): 1 second.
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
 * The counters and contents of the cache. `degraded` says why the cache is
 * not working: the database could not be opened (for the life of the layer),
 * or the last lookup, store or prune failed (until one succeeds).
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly hits: number
  readonly misses: number
  /**
   * Summaries written (a replacement of an expired entry included; stores
   * skipped, failed, or of a key another summary was stored for first, excluded).
   */
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
export class SqlCache
  extends Compat.Service<SqlCache, Service>()("context-compressor/layers/SummaryCacheSql/SqlCache")
{}

const makeWith = (options: Options, where: string) =>
  Effect.gen(function*() {
    const sql = yield* Compat.SqlClient
    const summaries = SqlSummaries.make({
      statement: <Row extends object>(statement: SqlStatements.Statement): Effect.Effect<
        ReadonlyArray<Row>,
        Compat.SqlError
      > => SqlMigrations.statement<Row>(sql, statement),
      withTransaction: (op) => sql.withTransaction(op),
      now: options.now === undefined ? Clock.currentTimeMillis : Effect.sync(options.now),
      recover: (op, onFailure) =>
        Compat.catchCause(
          op,
          (cause) => Compat.hasInterruptsOnly(cause) ? Effect.interrupt : onFailure(SqlMigrations.describeCause(cause))
        )
    }, { maxAgeMs: options.maxAgeMs ?? defaultMaxAgeMs, maxBytes: options.maxBytes ?? defaultMaxBytes, where })
    const cache = SummaryCache.SummaryCache.of({
      lookup: (key) => Effect.map(summaries.lookup(key, SummaryCache.digest(key)), Compat.fromNullishOr),
      store: (key, summary, storeOptions) =>
        summaries.store(key, SummaryCache.digest(key), summary, storeOptions?.replacing)
    })
    const inspection: Service = {
      stats: Effect.map(summaries.stats, (stats) => ({ ...stats, degraded: Compat.fromNullishOr(stats.degraded) })),
      prune: summaries.prune
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
    const cache = SummaryCache.SummaryCache.of({
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
 * Builds the cache on the current `SqlClient` and its inspection service, as
 * one context to provide. The schema must be there (`SqlMigrations.run`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Context.Context<SummaryCache.SummaryCache | SqlCache>, never, Compat.SqlClient> =>
  makeWith(options, "(SQL database)")

/**
 * Provides the `SummaryCache` on the current `SqlClient`, and the `SqlCache`
 * that reads its counters and prunes it. The schema must be there
 * (`SqlMigrations.run`); the SQL is portable to PostgreSQL.
 *
 * @example
 * ```ts
 * import { SqlPg, SummaryCacheSql } from "context-compressor/layers"
 * import { Layer, Redacted } from "effect"
 *
 * // The summaries in the application's database, a week at most, 256 MiB at most.
 * const sql = SqlPg.layer({ url: Redacted.make("postgres://agents@db.internal/agents") })
 * export const cache = SummaryCacheSql.layer({ maxAgeMs: 7 * 24 * 3_600_000, maxBytes: 256 * 1_048_576 }).pipe(
 *   Layer.provide(sql)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<SummaryCache.SummaryCache | SqlCache, never, Compat.SqlClient> => Layer.effectContext(make(options))

/**
 * Provides the `SummaryCache` in a SQLite file, opened (created when missing)
 * and migrated by the layer, and the `SqlCache`. The layer always builds: a
 * file that is corrupt, locked or unwritable gives a cache that misses, with
 * a warning naming the file and the cause; the file is never touched.
 *
 * @example
 * ```ts
 * import { SummaryCacheSql } from "context-compressor/layers"
 * import { Effect } from "effect"
 * import { mkdtempSync } from "node:fs"
 * import { tmpdir } from "node:os"
 * import { join } from "node:path"
 *
 * // The summaries in one SQLite file, shared by the processes of the machine; `SqlCache` counts its use.
 * const filename = join(mkdtempSync(join(tmpdir(), "agent-")), "cache.db")
 * const stats = Effect.flatMap(SummaryCacheSql.SqlCache, (cache) => cache.stats)
 * const { entries } = await Effect.runPromise(Effect.provide(stats, SummaryCacheSql.layerSqlite({ filename })))
 * assert.strictEqual(entries, 0)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<SummaryCache.SummaryCache | SqlCache> =>
  Compat.layerScopedContext(
    Effect.gen(function*() {
      const opened = yield* Compat.result(
        Compat.openSqlite({
          filename: options.filename,
          busyTimeoutMs: options.busyTimeoutMs ?? defaultBusyTimeoutMs
        })
      )
      return yield* Compat.matchResult(opened, {
        onFailure: ({ path, reason }) =>
          Effect.andThen(
            Effect.logWarning(
              `summary cache ${path} cannot be used (${reason}): compaction continues without a cache, and the file is left as it is`
            ),
            makeDegraded(`cannot open ${path}: ${reason}`)
          ),
        onSuccess: (sql) => Effect.provideService(makeWith(options, options.filename), Compat.SqlClient, sql)
      })
    })
  )

/**
 * The former name of {@link layer}.
 *
 * @example
 * ```ts
 * import { SummaryCacheSql } from "context-compressor/layers"
 *
 * // The same layer under its former name: new code writes `SummaryCacheSql.layer`.
 * assert.strictEqual(SummaryCacheSql.layerSql, SummaryCacheSql.layer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `SummaryCacheSql.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerSql: typeof layer = layer
