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
import * as StoreRules from "../../src/internal/services/StoreRules.js"
import * as CompactionStore from "../services/CompactionStore.js"
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

const bigintColumn = StoreRules.bigintColumn

const makeWith = (client: Effect.Effect<SqlClient.SqlClient, string>, where: string): CompactionStore.Service => {
  const decode = CompactionStore.makeDecoder()
  const failed = (sessionId: string, doing: string) => (cause: Cause.Cause<unknown>) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.interrupt
      : Effect.fail(
        new CompactionStore.StoreError({ sessionId, reason: `${doing} ${where}: ${SqliteNode.describeCause(cause)}` })
      )
  const connected = (sessionId: string) =>
    Effect.mapError(client, (reason) => new CompactionStore.StoreError({ sessionId, reason }))
  const run = <A extends object>(
    sessionId: string,
    doing: string,
    statement: SqlStatements.Statement
  ): Effect.Effect<ReadonlyArray<A>, CompactionStore.StoreError> =>
    Effect.flatMap(connected(sessionId), (sql) =>
      SqliteNode.statement<A>(sql, statement).pipe(
        Effect.catchCause(failed(sessionId, doing))
      ))

  const load = (sessionId: string) =>
    Effect.gen(function*() {
      const rows = yield* run<{ readonly state: unknown }>(
        sessionId,
        "reading from",
        SqlStatements.loadState(sessionId)
      )
      const row = rows[0]
      if (row === undefined) return Option.none<CompactionStore.CompactionState>()
      const undecodable = (detail: string) =>
        new CompactionStore.StoreError({ sessionId, reason: StoreRules.notDecodable(detail, where) })
      if (typeof row.state !== "string") {
        return yield* undecodable(`the state column holds no text (${typeof row.state})`)
      }
      const state = yield* Effect.mapError(decode(sessionId, row.state), (error) => undecodable(error.message))
      if (state.sessionId !== sessionId) {
        return yield* new CompactionStore.StoreError({
          sessionId,
          reason: `stored state in ${where} belongs to session ${JSON.stringify(state.sessionId)}`
        })
      }
      return Option.some(state)
    })

  /** The row of a state, refused when the state would not decode from its own JSON (it would be lost at load). */
  const rowOf = (state: CompactionStore.CompactionState) =>
    CompactionStore.encodeJson(state).pipe(
      Effect.map((text) => ({
        session_id: state.sessionId,
        compactions: state.compactions,
        state: text,
        updated_at: bigintColumn(state.updatedAt)
      })),
      Effect.mapError((error) =>
        new CompactionStore.StoreError({ sessionId: state.sessionId, reason: StoreRules.notEncodable(error.message) })
      )
    )

  const saveIfCurrent = (
    state: CompactionStore.CompactionState,
    expected: number,
    attempts = 3
  ): Effect.Effect<CompactionStore.SaveOutcome, CompactionStore.StoreError> =>
    Effect.gen(function*() {
      const { sessionId } = state
      const row = yield* rowOf(state)
      const written = yield* run<{ readonly session_id: string }>(
        sessionId,
        "writing to",
        SqlStatements.saveStateIfCurrent(row, expected)
      )
      if (written.length > 0) return CompactionStore.SaveOutcome.Saved()
      const current = yield* load(sessionId)
      if (Option.isSome(current)) return CompactionStore.SaveOutcome.Conflict({ current: current.value })
      // The row that stood in the way was removed meanwhile: nothing is overwritten by trying again.
      if (attempts > 1) return yield* saveIfCurrent(state, expected, attempts - 1)
      return yield* new CompactionStore.StoreError({
        sessionId,
        reason: `the state in ${where} kept changing during a versioned save`
      })
    })

  const memory: CompactionStore.MemoryStore = {
    load: (sessionId) =>
      Effect.map(
        run<{ readonly version: unknown; readonly memory: unknown; readonly reported_tokens: unknown }>(
          sessionId,
          "reading from",
          SqlStatements.loadMemory(sessionId)
        ),
        (rows) =>
          Option.map(Option.fromNullishOr(rows[0]), (row) => ({
            version: String(row.version),
            memory: String(row.memory),
            reportedTokens: row.reported_tokens === null || row.reported_tokens === undefined
              ? undefined
              : Number(row.reported_tokens)
          }))
      ),
    save: (sessionId, version, text) =>
      Effect.asVoid(
        run(sessionId, "writing to", SqlStatements.saveMemory(sessionId, version, text, Date.now()))
      ),
    report: (sessionId, report) =>
      Effect.asVoid(run(
        sessionId,
        "writing to",
        SqlStatements.saveReport(sessionId, bigintColumn(report.tokens), report.basis ?? null, Date.now())
      )),
    reported: (sessionId) =>
      Effect.map(
        run<{ readonly reported_tokens: unknown; readonly reported_basis: unknown }>(
          sessionId,
          "reading from",
          SqlStatements.loadReport(sessionId)
        ),
        (rows) => {
          const row = rows[0]
          if (row === undefined || row.reported_tokens === null || row.reported_tokens === undefined) return undefined
          return {
            tokens: Number(row.reported_tokens),
            basis: typeof row.reported_basis === "string" ? row.reported_basis : undefined
          }
        }
      )
  }

  return CompactionStore.make({
    memory,
    load,
    save: (state) =>
      Effect.gen(function*() {
        const { sessionId } = state
        const row = yield* rowOf(state)
        const sql = yield* connected(sessionId)
        yield* sql.withTransaction(SqliteNode.statement(sql, SqlStatements.saveState(row))).pipe(
          Effect.catchCause(failed(sessionId, "writing to"))
        )
      }),
    saveIfCurrent: (state, expected) => saveIfCurrent(state, expected)
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
