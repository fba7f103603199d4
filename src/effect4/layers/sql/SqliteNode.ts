/**
 * SQLite on Effect 4 over Node's built-in `node:sqlite` (docs/effect4.md: no
 * stable Effect 4 SQLite driver, and better-sqlite3 needs an install script):
 * an `effect/sql` `SqlClient` over one `DatabaseSync` connection, made with
 * `SqlClient.make` and `SqlClient.makeSqliteAcquirers` (a semaphore of one,
 * transactions and savepoints by the client), the shared core's statements
 * run on it (`statement`), the one migration set (`migrate`, the same table
 * the Effect 3 face's migrator keeps), and a file opened for the production
 * layers (`open`: its directory created, a busy timeout, write-ahead logging,
 * migrated).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import { classifySqliteError, SqlError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type * as SqlStatements from "../../../core/services/SqlStatements.js"
import * as SqliteReading from "../../../face/layers/sql/SqliteReading.js"
import * as SqlMigrations from "../../../face/layers/sql/SqlMigrations.js"

/**
 * A SQLite database that could not be opened and brought up to the schema.
 *
 * @since 0.1.0
 * @category errors
 */
export class OpenError extends Schema.TaggedError<OpenError>()("OpenError", {
  path: Schema.String,
  reason: Schema.String
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly filename: string
  /** How long an operation waits for a lock held by another connection (default 5 seconds). */
  readonly busyTimeoutMs?: number | undefined
}

/**
 * What went wrong, in one line: the innermost cause's message with its code
 * (`SqlMigrations.describeCause`, the Effect 3 face's `SqliteFile.describeCause`).
 *
 * @since 0.1.0
 * @category utils
 */
export const describeCause: (cause: Cause.Cause<unknown>) => string = SqlMigrations.describeCause

/**
 * What this layer asks of a `node:sqlite` `DatabaseSync` (written out, so the
 * declarations name no `node:sqlite` type: an application whose
 * `@types/node` predates it still type-checks).
 *
 * @since 0.1.0
 * @category models
 */
export interface Database {
  readonly isTransaction: boolean
  readonly prepare: (sql: string) => {
    readonly setReturnArrays: (enabled: boolean) => unknown
    readonly all: (...parameters: Array<Parameter>) => ReadonlyArray<unknown>
  }
}

/**
 * A value SQLite binds to a statement's parameter.
 *
 * @since 0.1.0
 * @category models
 */
export type Parameter = null | number | bigint | string | Uint8Array

const parameters = (params: ReadonlyArray<unknown>): Array<Parameter> =>
  params.map((value) => value === undefined ? null : typeof value === "boolean" ? (value ? 1 : 0) : value as Parameter)

/** The connection of `effect/sql` over one `DatabaseSync`: every statement prepared and run at once. */
const connectionOf = (database: Database): SqlConnection.Connection => {
  const failed = (operation: string) => (cause: unknown) =>
    new SqlError({
      reason: classifySqliteError(cause, { message: `Failed to ${operation} statement`, operation })
    })
  const rows = (sql: string, params: ReadonlyArray<unknown>, arrays: boolean) =>
    Effect.try({
      try: () => {
        const prepared = database.prepare(sql)
        prepared.setReturnArrays(arrays)
        return prepared.all(...parameters(params)) as ReadonlyArray<any>
      },
      catch: failed("execute")
    })
  const execute = (
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => Effect.map(rows(sql, params, false), (result) => transformRows === undefined ? result : transformRows(result))
  return {
    execute,
    executeRaw: (sql, params) => rows(sql, params, false),
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(Effect.map(execute(sql, params, transformRows), (result) => Stream.fromIterable(result))),
    executeValues: (sql, params) =>
      rows(sql, params, true) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
    executeValuesUnprepared: (sql, params) =>
      rows(sql, params, true) as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError>,
    executeUnprepared: execute
  }
}

/**
 * A `SqlClient` over an open `DatabaseSync`, which the caller closes. Access
 * is serialised by one semaphore (the database is synchronous), as the
 * SQLite clients of `effect/sql` do.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeClient = (database: Database): Effect.Effect<SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const connection = connectionOf(database)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore: yield* Semaphore.make(1),
      isTransaction: () => database.isTransaction
    })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "node-sqlite",
      spanAttributes: [["db.system.name", "sqlite"]]
    }).pipe(Effect.provide(Reactivity.layer))
  })

/**
 * A statement of the shared core (`core/services/SqlStatements`) on a client of `effect/sql`
 * (`SqlMigrations.statement`).
 *
 * @since 0.1.0
 * @category statements
 */
export const statement: <A extends object = SqlConnection.Row>(
  sql: SqlClient.SqlClient,
  each: SqlStatements.Statement
) => Statement.Statement<A> = SqlMigrations.statement

/**
 * The migrations, keyed `<id>_<name>` as `Migrator.fromRecord` expects: the shared core's set
 * (`SqlMigrations.migrations`).
 *
 * @since 0.1.0
 * @category constants
 */
export const migrations: Record<string, Effect.Effect<void, SqlError, SqlClient.SqlClient>> = SqlMigrations.migrations

/**
 * Brings the database behind the current `SqlClient` up to the latest
 * migration, in the table the Effect 3 face's migrator keeps; running it again is a no-op
 * (`SqlMigrations.run`).
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = SqlMigrations.run

/**
 * `node:sqlite`, loaded without the ExperimentalWarning Node 22 writes on stderr when it is first
 * loaded: a program's stderr (the CLI's one summary line) is not the place for a note about the
 * module this layer chose. Any other warning in the meantime is emitted as usual.
 */
const loadSqlite = async () => {
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: Array<unknown>) => {
    const text = typeof warning === "string" ? warning : warning.message
    if (/SQLite is an experimental feature/.test(text)) return
    return (emitWarning as (...args: Array<unknown>) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  try {
    return await import("node:sqlite")
  } finally {
    process.emitWarning = emitWarning
  }
}

/**
 * Opens (creating it and its directory when missing) a SQLite file with a
 * busy timeout and write-ahead logging, migrated, as a `SqlClient` closed
 * with the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = (options: Options): Effect.Effect<SqlClient.SqlClient, OpenError, Scope.Scope> => {
  const refuse = (cause: Cause.Cause<unknown>) =>
    new OpenError({ path: options.filename, reason: describeCause(cause) })
  return Effect.gen(function*() {
    const { DatabaseSync } = yield* Effect.promise(loadSqlite)
    const database = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          Fs.mkdirSync(Path.dirname(options.filename), { recursive: true })
          const database = new DatabaseSync(options.filename, { timeout: options.busyTimeoutMs ?? 5_000 })
          database.exec("PRAGMA journal_mode = WAL")
          return database
        },
        catch: (error) => error
      }),
      (database) => Effect.sync(() => database.isOpen && database.close())
    )
    const sql = yield* makeClient(database)
    yield* Effect.provideService(migrate, SqlClient.SqlClient, sql)
    return sql
  }).pipe(
    Effect.catchCause((cause) => Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.fail(refuse(cause)))
  )
}

/**
 * Opens a SQLite file for a reader: as {@link open}, but a file that may not be written is read
 * from a private copy, and a missing one that cannot be made is an empty database in memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const openReading: (options: Options) => Effect.Effect<SqlClient.SqlClient, OpenError, Scope.Scope> =
  SqliteReading.reading(open, (path, reason) => new OpenError({ path, reason }))
