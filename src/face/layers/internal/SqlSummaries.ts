/**
 * The SQL summary cache's policy: what `SummaryCacheSql` does with its
 * database. A lookup returns an
 * entry used within the age and records its use; a store keeps the summary
 * stored first and evicts by age and then by size in the same transaction; a
 * failed operation never fails the caller (a lookup misses, a store is
 * skipped) but logs a warning and is reported by `stats` until an operation
 * succeeds again. The layer gives it a {@link Database}: its SQL client's
 * statements and transactions, its clock, and its reading of a failure.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as SqlStatements from "../../../core/services/SqlStatements.js"
import type * as SummaryKey from "../../../core/services/SummaryKey.js"

/**
 * What the layer gives the cache: its SQL client's statements (failing with `E`) and transactions,
 * its clock, and its reading of a failure.
 *
 * @since 0.1.0
 * @category models
 */
export interface Database<E> {
  /** Runs a statement; its rows. */
  readonly statement: <Row extends object>(statement: SqlStatements.Statement) => Effect.Effect<ReadonlyArray<Row>, E>
  /** Runs `op` in one transaction. */
  readonly withTransaction: <A, E2>(op: Effect.Effect<A, E2>) => Effect.Effect<A, E | E2>
  /** The time now, in milliseconds. */
  readonly now: Effect.Effect<number>
  /**
   * `op`, or `onFailure` of its failure described in one line when it fails
   * in any way but an interruption (an interruption stays one).
   */
  readonly recover: <A, E2>(
    op: Effect.Effect<A, E2>,
    onFailure: (described: string) => Effect.Effect<A>
  ) => Effect.Effect<A>
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
  readonly lookup: (key: SummaryKey.Key, digest: string) => Effect.Effect<string | undefined>
  /** Stores a summary (replacing the entry the gate refused, `replacing`); a failure is logged, not raised. */
  readonly store: (
    key: SummaryKey.Key,
    digest: string,
    summary: string,
    replacing: string | undefined
  ) => Effect.Effect<void>
  readonly stats: Effect.Effect<Stats>
  /** Applies the age and size eviction now; how many entries it removed. */
  readonly prune: Effect.Effect<{ readonly removed: number }>
}

const countRow = (value: unknown): number => Number(value ?? 0)

const utf8 = new TextEncoder()

/**
 * The cache over `database`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E>(database: Database<E>, limits: Limits): Summaries => {
  const { maxAgeMs, maxBytes, where } = limits
  let hits = 0
  let misses = 0
  let stores = 0
  let failure: string | undefined = undefined

  /** A failed operation logs a warning, records why and gives `fallback`; a successful one clears the record. */
  const recover = <A, E2>(
    op: Effect.Effect<A, E2>,
    operation: string,
    consequence: string,
    fallback: A
  ): Effect.Effect<A> =>
    database.recover(
      Effect.gen(function*() {
        const value = yield* op
        failure = undefined
        return value
      }),
      (described) =>
        Effect.gen(function*() {
          const reason = `${operation} failed: ${described}`
          yield* Effect.logWarning(`summary cache ${where}: ${reason}; ${consequence}`)
          failure = reason
          return fallback
        })
    )

  const totals = Effect.gen(function*() {
    const rows = yield* database.statement<{ readonly entries: unknown; readonly bytes: unknown }>(
      SqlStatements.cacheTotals
    )
    return { entries: countRow(rows[0]?.entries), bytes: countRow(rows[0]?.bytes) }
  })

  // The newest entries are kept while their running total fits `maxBytes`; every older one goes.
  const evict = (time: number) =>
    Effect.gen(function*() {
      yield* database.statement(SqlStatements.evictOlderThan(time - maxAgeMs))
      yield* database.statement(SqlStatements.evictOverBytes(maxBytes))
    })

  return {
    lookup: (key, digest) =>
      Effect.gen(function*() {
        // An entry past its age is not returned even before a store evicts it.
        const found = yield* recover<{ readonly summary: string; readonly time: number } | undefined, E>(
          Effect.gen(function*() {
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
          Effect.gen(function*() {
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
        Effect.gen(function*() {
          const bytes = utf8.encode(summary).length
          if (bytes > maxBytes) {
            return yield* Effect.logDebug(
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
          const written = yield* database.withTransaction(Effect.gen(function*() {
            const rows = yield* database.statement<{ readonly digest: string }>(
              SqlStatements.storeSummary(row, time - maxAgeMs, replacing)
            )
            yield* evict(time)
            return rows
          }))
          if (written.length === 0) {
            return yield* Effect.logDebug(`summary cache ${where}: a summary was stored first for this key; it is kept`)
          }
          stores++
        }),
        "store",
        "the summary is not cached",
        undefined
      ),
    stats: Effect.gen(function*() {
      const held = yield* database.recover<{ readonly entries: number; readonly bytes: number } | string, E>(
        totals,
        (described) => Effect.succeed(`stats failed: ${described}`)
      )
      return typeof held === "string"
        ? { hits, misses, stores, entries: 0, bytes: 0, degraded: held }
        : { hits, misses, stores, ...held, degraded: failure }
    }),
    prune: recover(
      Effect.gen(function*() {
        const time = yield* database.now
        return yield* database.withTransaction(Effect.gen(function*() {
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
