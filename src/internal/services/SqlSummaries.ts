/**
 * The SQL summary cache's policy, in the shared core (docs/effect4.md): what
 * both faces' `SummaryCacheSql` do with their database. A lookup returns an
 * entry used within the age and records its use; a store keeps the summary
 * stored first and evicts by age and then by size in the same transaction; a
 * failed operation never fails the caller (a lookup misses, a store is
 * skipped) but logs a warning and is reported by `stats` until an operation
 * succeeds again. A face gives it a {@link Database}: its SQL client's
 * statements and transactions, its clock, and its reading of a failure.
 *
 * @since 0.1.0
 */
import type * as Fx from "../Fx.js"
import * as SqlStatements from "./SqlStatements.js"
import type * as SummaryKey from "./SummaryKey.js"

/**
 * What a face gives the cache.
 *
 * @since 0.1.0
 * @category models
 */
export interface Database {
  /** Runs a statement; its rows. */
  readonly statement: <Row extends object>(statement: SqlStatements.Statement) => Fx.Op<ReadonlyArray<Row>>
  /** Runs `op` in one transaction. */
  readonly withTransaction: <A>(op: Fx.Op<A>) => Fx.Op<A>
  /** The time now, in milliseconds. */
  readonly now: Fx.Op<number>
  /**
   * `op`, or `onFailure` of its failure described in one line when it fails
   * in any way but an interruption (an interruption stays one).
   */
  readonly recover: <A>(op: Fx.Op<A>, onFailure: (described: string) => Fx.Op<A>) => Fx.Op<A>
}

/**
 * The cache's limits and the place its warnings name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  readonly maxAgeMs: number
  readonly maxBytes: number
  /** How the warnings name the cache's place, such as `(SQL database)` or the file's path. */
  readonly where: string
}

/**
 * The cache's counters, its size, and why its last operation failed (none once one succeeds again).
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly hits: number
  readonly misses: number
  readonly stores: number
  readonly entries: number
  readonly bytes: number
  readonly degraded: string | undefined
}

/**
 * The cache's programs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summaries {
  /** The summary of `key` (its digest `digest`), `undefined` on a miss or a failed lookup. */
  readonly lookup: (key: SummaryKey.Key, digest: string) => Fx.Op<string | undefined>
  /** Stores a summary (replacing the entry the gate refused, `replacing`); a failure is logged, not raised. */
  readonly store: (key: SummaryKey.Key, digest: string, summary: string, replacing: string | undefined) => Fx.Op<void>
  readonly stats: Fx.Op<Stats>
  /** Applies the age and size eviction now; how many entries it removed. */
  readonly prune: Fx.Op<{ readonly removed: number }>
}

const countRow = (value: unknown): number => Number(value ?? 0)

const utf8 = new TextEncoder()

/**
 * The cache over `database`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (fx: Fx.Fx, database: Database, limits: Limits): Summaries => {
  const { maxAgeMs, maxBytes, where } = limits
  let hits = 0
  let misses = 0
  let stores = 0
  let failure: string | undefined = undefined

  /** A failed operation logs a warning, records why and gives `fallback`; a successful one clears the record. */
  const recover = <A>(op: Fx.Op<A>, operation: string, consequence: string, fallback: A): Fx.Op<A> =>
    database.recover(
      fx.gen(function*() {
        const value = yield* op
        failure = undefined
        return value
      }),
      (described) =>
        fx.gen(function*() {
          const reason = `${operation} failed: ${described}`
          yield* fx.logWarning(`summary cache ${where}: ${reason}; ${consequence}`)
          failure = reason
          return fallback
        })
    )

  const totals = fx.gen(function*() {
    const rows = yield* database.statement<{ readonly entries: unknown; readonly bytes: unknown }>(
      SqlStatements.cacheTotals
    )
    return { entries: countRow(rows[0]?.entries), bytes: countRow(rows[0]?.bytes) }
  })

  // The newest entries are kept while their running total fits `maxBytes`; every older one goes.
  const evict = (time: number) =>
    fx.gen(function*() {
      yield* database.statement(SqlStatements.evictOlderThan(time - maxAgeMs))
      yield* database.statement(SqlStatements.evictOverBytes(maxBytes))
    })

  return {
    lookup: (key, digest) =>
      fx.gen(function*() {
        // An entry past its age is not returned even before a store evicts it.
        const found = yield* recover<{ readonly summary: string; readonly time: number } | undefined>(
          fx.gen(function*() {
            const time = yield* database.now
            const rows = yield* database.statement<{ readonly summary: string }>(
              SqlStatements.lookupSummary(digest, key, time - maxAgeMs)
            )
            const summary = rows[0]?.summary
            return summary === undefined ? undefined : { summary, time }
          }),
          "lookup",
          "treated as a miss",
          undefined
        )
        if (found === undefined) {
          misses++
          return undefined
        }
        hits++
        yield* recover(
          fx.gen(function*() {
            yield* database.statement(SqlStatements.touchSummary(digest, found.time))
          }),
          "refreshing the last use of an entry",
          "the summary is used, its last use is not recorded",
          undefined
        )
        return found.summary
      }),
    store: (key, digest, summary, replacing) =>
      recover(
        fx.gen(function*() {
          const bytes = utf8.encode(summary).length
          if (bytes > maxBytes) {
            return yield* fx.logDebug(
              `summary cache ${where}: a summary of ${bytes} bytes exceeds the ${maxBytes} bytes kept; not stored`
            )
          }
          const time = yield* database.now
          const row: SqlStatements.SummaryRow = {
            digest,
            namespace: key.namespace,
            schema_version: key.schemaVersion,
            model: key.model,
            summary,
            bytes,
            created_at: time,
            used_at: time
          }
          // The summary stored first stays: a second store of the key (another worker that asked
          // meanwhile) only replaces an entry past its age, which no lookup returns any more, or the
          // entry the gate refused (`replacing`), unless another worker replaced it already.
          const written = yield* database.withTransaction(fx.gen(function*() {
            const rows = yield* database.statement<{ readonly digest: string }>(
              SqlStatements.storeSummary(row, time - maxAgeMs, replacing)
            )
            yield* evict(time)
            return rows
          }))
          if (written.length === 0) {
            return yield* fx.logDebug(`summary cache ${where}: a summary was stored first for this key; it is kept`)
          }
          stores++
        }),
        "store",
        "the summary is not cached",
        undefined
      ),
    stats: fx.gen(function*() {
      const held = yield* database.recover<{ readonly entries: number; readonly bytes: number } | string>(
        totals,
        (described) => fx.succeed(`stats failed: ${described}`)
      )
      return typeof held === "string"
        ? { hits, misses, stores, entries: 0, bytes: 0, degraded: held }
        : { hits, misses, stores, ...held, degraded: failure }
    }),
    prune: recover(
      fx.gen(function*() {
        const time = yield* database.now
        return yield* database.withTransaction(fx.gen(function*() {
          const before = yield* totals
          yield* evict(time)
          const after = yield* totals
          return { removed: before.entries - after.entries }
        }))
      }),
      "prune",
      "nothing was removed",
      { removed: 0 }
    )
  }
}
