/**
 * The compaction-state store on SQL (SPEC R2.9): one row per session in the
 * `compaction_state` table, holding the JSON text the `CompactionState`
 * schema encodes to. A save replaces the session's row in one transaction, so
 * a crash leaves the old state or the new one, never a mix; a versioned save
 * (`saveIfCurrent`) is one conditional upsert, so of two workers that compact
 * the same session at once, on SQLite or PostgreSQL, exactly one wins. The
 * sessions' memory between checkpoints (`memory`) is one row per session in
 * `session_memory`, replaced by each checkpoint. Unlike the summary
 * cache, a store that fails says so: every SQL error, and a row that does not
 * decode, is a `StoreError` with the session id and the reason.
 *
 * @since 0.1.0
 */
import {
  catch as catch_,
  catchCause,
  fromNullishOr,
  hasInterruptsOnly,
  layerScoped,
  openSqlite,
  SqlClient
} from "#compat"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as SqlStatements from "../../core/services/SqlStatements.js"
import * as CompactionStore from "../services/CompactionStore.js"
import * as SqlStates from "./internal/SqlStates.js"
import * as SqlMigrations from "./sql/SqlMigrations.js"

/**
 * Options of the SQLite store.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteOptions {
  readonly filename: string
  /** How long an operation waits for a lock held by another connection (default 5 seconds). */
  readonly busyTimeoutMs?: number | undefined
}

const makeWith = (client: Effect.Effect<SqlClient, string>, where: string): CompactionStore.Service => {
  const error = (sessionId: string, reason: string) => new CompactionStore.StoreError({ sessionId, reason })
  const states = SqlStates.make({
    where,
    run: <Row extends object>(
      sessionId: string,
      doing: string,
      statement: SqlStatements.Statement,
      options?: { readonly transaction?: boolean }
    ) =>
      Effect.flatMap(Effect.mapError(client, (reason) => error(sessionId, reason)), (sql) => {
        const rows: Effect.Effect<ReadonlyArray<Row>, unknown> = SqlMigrations.statement<Row>(sql, statement)
        return (options?.transaction === true ? sql.withTransaction(rows) : rows).pipe(
          catchCause((cause) =>
            hasInterruptsOnly(cause)
              ? Effect.interrupt
              : Effect.fail(error(sessionId, `${doing} ${where}: ${SqlMigrations.describeCause(cause)}`))
          )
        )
      })
  }, {
    encode: CompactionStore.encodeJson,
    decode: CompactionStore.makeDecoder(),
    error,
    saved: (): CompactionStore.SaveOutcome => CompactionStore.SaveOutcome.Saved(),
    conflict: (current): CompactionStore.SaveOutcome => CompactionStore.SaveOutcome.Conflict({ current })
  })
  const memory: CompactionStore.MemoryStore = {
    load: (sessionId) => Effect.map(states.memory.load(sessionId), fromNullishOr),
    save: states.memory.save,
    report: states.memory.report,
    reported: states.memory.reported
  }
  return CompactionStore.CompactionStore.of({
    memory,
    load: (sessionId) => Effect.map(states.load(sessionId), fromNullishOr),
    save: states.save,
    saveIfCurrent: states.saveIfCurrent
  })
}

/**
 * Builds the store on the current `SqlClient`. The schema must be there
 * (`SqlMigrations.run`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<CompactionStore.Service, never, SqlClient> = Effect.map(
  SqlClient,
  (sql) => makeWith(Effect.succeed(sql), "the SQL database")
)

/**
 * Provides the `CompactionStore` on the current `SqlClient`. The schema must
 * be there (`SqlMigrations.run`); the SQL is portable to PostgreSQL.
 *
 * @example
 * ```ts
 * import { CompactionStoreSql, SqlPg } from "context-compressor/layers"
 * import { Layer, Redacted } from "effect"
 *
 * // The compaction states in the application's own PostgreSQL database (any @effect/sql client will do).
 * export const store = CompactionStoreSql.layer.pipe(
 *   Layer.provide(SqlPg.layer({ url: Redacted.make("postgres://app@localhost/agents") }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<CompactionStore.CompactionStore, never, SqlClient> = Layer.effect(
  CompactionStore.CompactionStore,
  make
)

/**
 * Provides the `CompactionStore` in a SQLite file, opened (created when
 * missing) and migrated by the layer. A file that cannot be opened does not
 * stop the layer: a warning names it and the cause, each load and save fails
 * with a `StoreError` saying why, and each tries to open the file again, so a
 * lock that is released or a path that is repaired heals the store.
 *
 * @example
 * ```ts
 * import { CompactionStoreSql } from "context-compressor/layers"
 * import { CompactionStore } from "context-compressor/services"
 * import { Effect, Option } from "effect"
 * import { mkdtempSync } from "node:fs"
 * import { tmpdir } from "node:os"
 * import { join } from "node:path"
 *
 * // The compaction states in one SQLite file, which survives the process.
 * const filename = join(mkdtempSync(join(tmpdir(), "agent-")), "state.db")
 * const loaded = Effect.flatMap(CompactionStore.CompactionStore, (store) => store.load("s1"))
 * const state = await Effect.runPromise(loaded.pipe(Effect.provide(CompactionStoreSql.layerSqlite({ filename }))))
 * assert.ok(Option.isNone(state))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<CompactionStore.CompactionStore> =>
  layerScoped(
    CompactionStore.CompactionStore,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const opened = yield* SynchronizedRef.make(Option.none<SqlClient>())
      const client = SynchronizedRef.modifyEffect(opened, (current) =>
        Option.match(current, {
          onSome: (sql) => Effect.succeed([sql, current] as const),
          onNone: () =>
            openSqlite(options).pipe(
              Effect.provideService(Scope.Scope, scope),
              Effect.map((sql) => [sql, Option.some(sql)] as const)
            )
        })).pipe(Effect.mapError((error) => `cannot open ${error.path}: ${error.reason}`))
      yield* catch_(client, (reason) =>
        Effect.logWarning(`compaction store ${reason}: loads and saves fail with StoreError until it can be opened`))
      return makeWith(client, options.filename)
    })
  )

/**
 * The former name of {@link layer}.
 *
 * @example
 * ```ts
 * import { CompactionStoreSql } from "context-compressor/layers"
 *
 * // The same layer under its former name: new code writes `CompactionStoreSql.layer`.
 * assert.strictEqual(CompactionStoreSql.layerSql, CompactionStoreSql.layer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `CompactionStoreSql.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerSql: typeof layer = layer
