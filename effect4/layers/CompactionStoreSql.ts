/**
 * The compaction-state store on SQL, on Effect 4: one row per session in the
 * `compaction_state` table holding the JSON text the `CompactionState` schema
 * encodes to (the Effect 3 face's, so a file written by one face is read by
 * the other), run by the shared core's statements (`SqlStatements`). A save
 * replaces the session's row in one transaction; a versioned save
 * (`saveIfCurrent`) is one conditional upsert. The sessions' memory between
 * checkpoints (`memory`) is one row per session in `session_memory`. Every SQL
 * error, and a row that does not decode, is a `StoreError`. Effect 4 face of
 * `layers/CompactionStoreSql`.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as SqlStatements from "../../src/internal/services/SqlStatements.js"
import * as SqlStates from "../../src/internal/services/SqlStates.js"
import * as CompactionStore from "../services/CompactionStore.js"
import { effect, fx } from "../src/internal/EffectFx.js"
import * as SqliteNode from "./sql/SqliteNode.js"

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

const makeWith = (client: Effect.Effect<SqlClient.SqlClient, string>, where: string): CompactionStore.Service => {
  const error = (sessionId: string, reason: string) => new CompactionStore.StoreError({ sessionId, reason })
  const states = SqlStates.make(fx, {
    where,
    run: <Row extends object>(
      sessionId: string,
      doing: string,
      statement: SqlStatements.Statement,
      options?: { readonly transaction?: boolean }
    ) =>
      Effect.flatMap(Effect.mapError(client, (reason) => error(sessionId, reason)), (sql) => {
        const rows: Effect.Effect<ReadonlyArray<Row>, unknown> = SqliteNode.statement<Row>(sql, statement)
        return (options?.transaction === true ? sql.withTransaction(rows) : rows).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.interrupt
              : Effect.fail(error(sessionId, `${doing} ${where}: ${SqliteNode.describeCause(cause)}`))
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
  type Failing<A> = Effect.Effect<A, CompactionStore.StoreError>
  const memory: CompactionStore.MemoryStore = {
    load: (sessionId) =>
      Effect.map(
        effect(states.memory.load(sessionId)) as Failing<SqlStates.StoredMemory | undefined>,
        Option.fromNullishOr
      ),
    save: (sessionId, version, text) => effect(states.memory.save(sessionId, version, text)) as Failing<void>,
    report: (sessionId, report) => effect(states.memory.report(sessionId, report)) as Failing<void>,
    reported: (sessionId) => effect(states.memory.reported(sessionId)) as Failing<SqlStates.Reported | undefined>
  }
  return CompactionStore.make({
    memory,
    load: (sessionId) =>
      Effect.map(
        effect(states.load(sessionId)) as Failing<CompactionStore.CompactionState | undefined>,
        Option.fromNullishOr
      ),
    save: (state) => effect(states.save(state)) as Failing<void>,
    saveIfCurrent: (state, expected) =>
      effect(states.saveIfCurrent(state, expected)) as Failing<CompactionStore.SaveOutcome>
  })
}

/**
 * Builds the store on the current `SqlClient`. The schema must be there (`SqliteNode.migrate`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<CompactionStore.Service, never, SqlClient.SqlClient> = Effect.map(
  Effect.service(SqlClient.SqlClient),
  (sql) => makeWith(Effect.succeed(sql), "the SQL database")
)

/**
 * Provides the `CompactionStore` on the current `SqlClient`. The schema must be there.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<CompactionStore.CompactionStore, never, SqlClient.SqlClient> = Layer.effect(
  CompactionStore.CompactionStore,
  make
)

/**
 * Provides the `CompactionStore` in a SQLite file on `node:sqlite`, opened
 * (created when missing) and migrated by the layer. A file that cannot be
 * opened does not stop the layer: a warning names it and the cause, each load
 * and save fails with a `StoreError` saying why, and each tries to open the
 * file again.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<CompactionStore.CompactionStore> =>
  Layer.effect(
    CompactionStore.CompactionStore,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const opened = yield* SynchronizedRef.make(Option.none<SqlClient.SqlClient>())
      const client = SynchronizedRef.modifyEffect(opened, (current) =>
        Option.match(current, {
          onSome: (sql) => Effect.succeed([sql, current] as const),
          onNone: () =>
            SqliteNode.open(options).pipe(
              Effect.provideService(Scope.Scope, scope),
              Effect.map((sql) => [sql, Option.some(sql)] as const)
            )
        })).pipe(Effect.mapError((error) => `cannot open ${error.path}: ${error.reason}`))
      yield* Effect.catch(
        client,
        (reason) =>
          Effect.logWarning(`compaction store ${reason}: loads and saves fail with StoreError until it can be opened`)
      )
      return makeWith(client, options.filename)
    })
  )
