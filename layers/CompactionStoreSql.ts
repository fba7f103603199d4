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
import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as CompactionStore from "../services/CompactionStore.js"
import * as SqlStatements from "../src/internal/services/SqlStatements.js"
import * as StoreRules from "../src/internal/services/StoreRules.js"
import * as SqliteFile from "./sql/SqliteFile.js"
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

const bigintColumn = StoreRules.bigintColumn

const makeWith = (client: Effect.Effect<SqlClient.SqlClient, string>, where: string): CompactionStore.Service => {
  const decode = CompactionStore.makeDecoder()
  const failed = (sessionId: string, doing: string) => (cause: Cause.Cause<unknown>) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.interrupt
      : Effect.fail(
        new CompactionStore.StoreError({ sessionId, reason: `${doing} ${where}: ${SqliteFile.describeCause(cause)}` })
      )
  const connected = (sessionId: string) =>
    Effect.mapError(client, (reason) => new CompactionStore.StoreError({ sessionId, reason }))

  const load = (sessionId: string) =>
    Effect.gen(function*() {
      const sql = yield* connected(sessionId)
      const rows = yield* SqlMigrations.statement<{ readonly state: unknown }>(sql, SqlStatements.loadState(sessionId))
        .pipe(
          Effect.catchAllCause(failed(sessionId, "reading from"))
        )
      const row = rows[0]
      if (row === undefined) return Option.none()
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
        new CompactionStore.StoreError({
          sessionId: state.sessionId,
          reason: StoreRules.notEncodable(error.message)
        })
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
      const sql = yield* connected(sessionId)
      // One statement, atomic on both dialects: PostgreSQL locks the conflicting row and checks the
      // condition on its latest version; SQLite has one writer at a time.
      const written = yield* SqlMigrations.statement<{ readonly session_id: string }>(
        sql,
        SqlStatements.saveStateIfCurrent(row, expected)
      ).pipe(Effect.catchAllCause(failed(sessionId, "writing to")))
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
      Effect.flatMap(
        connected(sessionId),
        (sql) =>
          SqlMigrations.statement<
            { readonly version: string; readonly memory: string; readonly reported_tokens: unknown }
          >(sql, SqlStatements.loadMemory(sessionId)).pipe(
            Effect.catchAllCause(failed(sessionId, "reading from")),
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => ({
                version: String(row.version),
                memory: String(row.memory),
                reportedTokens: row.reported_tokens === null || row.reported_tokens === undefined
                  ? undefined
                  : Number(row.reported_tokens)
              }))
            )
          )
      ),
    save: (sessionId, version, text) =>
      Effect.flatMap(
        connected(sessionId),
        (sql) =>
          SqlMigrations.statement(sql, SqlStatements.saveMemory(sessionId, version, text, Date.now())).pipe(
            Effect.asVoid,
            Effect.catchAllCause(failed(sessionId, "writing to"))
          )
      ),
    report: (sessionId, report) =>
      Effect.flatMap(
        connected(sessionId),
        (sql) =>
          SqlMigrations.statement(
            sql,
            SqlStatements.saveReport(sessionId, bigintColumn(report.tokens), report.basis ?? null, Date.now())
          ).pipe(
            Effect.asVoid,
            Effect.catchAllCause(failed(sessionId, "writing to"))
          )
      ),
    reported: (sessionId) =>
      Effect.flatMap(
        connected(sessionId),
        (sql) =>
          SqlMigrations.statement<
            { readonly reported_tokens: unknown; readonly reported_basis: unknown }
          >(sql, SqlStatements.loadReport(sessionId)).pipe(
            Effect.catchAllCause(failed(sessionId, "reading from")),
            Effect.map((rows) => {
              const row = rows[0]
              if (
                row === undefined || row.reported_tokens === null || row.reported_tokens === undefined
              ) return undefined
              return {
                tokens: Number(row.reported_tokens),
                basis: typeof row.reported_basis === "string" ? row.reported_basis : undefined
              }
            })
          )
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
        yield* sql.withTransaction(SqlMigrations.statement(sql, SqlStatements.saveState(row))).pipe(
          Effect.catchAllCause(failed(sessionId, "writing to"))
        )
      }),
    saveIfCurrent: (state, expected) => saveIfCurrent(state, expected)
  })
}

/**
 * Builds the store on the current `SqlClient`. The schema must be there
 * (`SqlMigrations.run`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<CompactionStore.Service, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
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
export const layer: Layer.Layer<CompactionStore.CompactionStore, never, SqlClient.SqlClient> = Layer.effect(
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
  Layer.scoped(
    CompactionStore.CompactionStore,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const opened = yield* SynchronizedRef.make(Option.none<SqlClient.SqlClient>())
      const client = SynchronizedRef.modifyEffect(opened, (current) =>
        Option.match(current, {
          onSome: (sql) => Effect.succeed([sql, current] as const),
          onNone: () =>
            SqliteFile.openSqlite(options).pipe(
              Effect.provideService(Scope.Scope, scope),
              Effect.map((sql) => [sql, Option.some(sql)] as const)
            )
        })).pipe(Effect.mapError((error) => `cannot open ${error.path}: ${error.reason}`))
      yield* Effect.catchAll(client, (reason) =>
        Effect.logWarning(`compaction store ${reason}: loads and saves fail with StoreError until it can be opened`))
      return makeWith(client, options.filename)
    })
  )

/**
 * The former name of {@link layer}.
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `CompactionStoreSql.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerSql: typeof layer = layer
