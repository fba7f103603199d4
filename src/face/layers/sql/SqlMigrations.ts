/**
 * The schema of context-compressor's SQL database, created by migrations.
 * One schema serves the summary cache, the compaction-state store (and the
 * sessions' memory between checkpoints), the persisted settings overrides and
 * the transcript archive; the SQL is kept to what SQLite and
 * PostgreSQL both read.
 *
 * @since 0.1.0
 */
import { type MigrationError, runMigrations, SqlClient, type SqlError, type SqlRow, type SqlStatement } from "#compat"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as SqlStatements from "../../../core/services/SqlStatements.js"

/**
 * A statement of the shared core (`core/services/SqlStatements`) on a
 * client of `@effect/sql` (of `effect/sql` on Effect 4), its rows typed `A`.
 *
 * @since 0.1.0
 * @category statements
 */
export const statement = <A extends object = SqlRow>(
  sql: SqlClient,
  statement: SqlStatements.Statement
): SqlStatement<A> =>
  SqlStatements.compile<SqlStatement<A>>({
    tag: (strings, values) => sql<A>(strings, ...values),
    insert: (row) => sql.insert(row)
  }, statement)

/**
 * The migrations, keyed `<id>_<name>` as `Migrator.fromRecord` expects: the
 * shared core's migration set. A migration is never edited once released; a
 * change is a new entry.
 *
 * @since 0.1.0
 * @category constants
 */
export const migrations: Record<string, Effect.Effect<void, SqlError, SqlClient>> = Object.fromEntries(
  SqlStatements.migrations.map((migration) => [
    `${String(migration.id).padStart(4, "0")}_${migration.name}`,
    Effect.flatMap(
      SqlClient,
      (sql) => Effect.forEach(migration.statements, (each) => statement(sql, each), { discard: true })
    )
  ])
)

/**
 * The key of the PostgreSQL advisory lock held while migrating, so that
 * workers starting at once against one server migrate one after another
 * (`CREATE TABLE` of the same table in two sessions at once fails on
 * PostgreSQL, `IF NOT EXISTS` or not).
 *
 * @since 0.1.0
 * @category constants
 */
export const pgLockKey = 0x63_63_6d_67

const migrate = runMigrations({ migrations, table: SqlStatements.migrationsTable })

/**
 * Brings the database behind the current `SqlClient` up to the latest
 * migration; running it again is a no-op. On PostgreSQL it holds an advisory
 * lock meanwhile, on a connection of its own (the client's pool needs a
 * second one to migrate).
 *
 * @since 0.1.0
 * @category migrations
 */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  MigrationError | SqlError,
  SqlClient
> = Effect.flatMap(SqlClient, (sql) =>
  sql.onDialectOrElse({
    pg: () =>
      Effect.scoped(
        Effect.gen(function*() {
          const connection = yield* sql.reserve
          yield* connection.executeUnprepared("SELECT pg_advisory_lock($1)", [pgLockKey], undefined)
          return yield* Effect.ensuring(
            migrate,
            Effect.ignore(connection.executeUnprepared("SELECT pg_advisory_unlock($1)", [pgLockKey], undefined))
          )
        })
      ),
    orElse: () => migrate
  }))

/** The messages and codes of an error and of its causes, joined. */
const causeChain = (error: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const { code, message } = current as { readonly code?: unknown; readonly message?: unknown }
    parts.push(`${typeof code === "string" ? code : ""} ${typeof message === "string" ? message : ""}`)
    current = (current as { readonly cause?: unknown }).cause
  }
  return parts.join(" <- ")
}

/**
 * Whether a failure is one of the races of processes opening a new SQLite
 * file at once, which the busy timeout does not wait out: a lock upgrade
 * another writer overtook, a schema read while another process migrates
 * ("Failed to prepare statement"; seen as 3 of 96 `settings set` run 8 at a
 * time on a new state.db, a plain SQLITE_BUSY at prepare). A plain
 * `SQLITE_BUSY` of a statement that ran is not one: the busy timeout has
 * already waited for it.
 *
 * @since 0.1.0
 * @category migrations
 */
export const isTransient = (error: unknown): boolean => {
  const chain = causeChain(error)
  // A statement that could not be prepared met the schema in another process's hands (even as a
  // plain SQLITE_BUSY, returned at once without the busy handler); a plain SQLITE_BUSY elsewhere
  // is the busy timeout waited out (a file held by another process): not retried.
  return /Failed to prepare statement|SQLITE_(BUSY_SNAPSHOT|BUSY_RECOVERY|LOCKED|SCHEMA)|database schema has changed/i
    .test(chain)
}

/**
 * Retries an idempotent effect on the database (the migrations, a read) that
 * failed with {@link isTransient}, up to 6 more times, 20 ms apart and
 * doubling, jittered. The first attempt runs as it is: a read that succeeds
 * (the settings' overrides at every checkpoint) pays for no schedule.
 *
 * @since 0.1.0
 * @category migrations
 */
export const retryTransient = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.catchIf(self, isTransient, () =>
    Effect.retry(Effect.delay(self, "20 millis"), {
      schedule: Schedule.exponential("40 millis").pipe(Schedule.jittered),
      times: 5,
      while: isTransient
    }))

/**
 * What went wrong, in one line: the innermost cause with its code
 * (`SQLITE_BUSY: database is locked`, `ENOTDIR: not a directory, mkdir …`),
 * of a failure of SQLite or PostgreSQL (`SqliteFile.describeCause`, the
 * summary cache's, the stores' and the archive's reasons).
 *
 * @since 0.1.0
 * @category utils
 */
export const describeCause = (cause: Cause.Cause<unknown>): string => {
  let current: unknown = Cause.squash(cause)
  // SqlError("Failed to execute statement") and MigrationError wrap the error that says what happened.
  while (
    typeof current === "object" && current !== null && "cause" in current && current.cause !== undefined &&
    current.cause !== current
  ) {
    current = current.cause
  }
  // A connection to a name with several addresses fails with all of them and no message of its own.
  if (current instanceof AggregateError && current.message === "" && current.errors[0] instanceof Error) {
    current = current.errors[0]
  }
  if (current instanceof Error) {
    const code = "code" in current ? current.code : undefined
    return typeof code === "string" && !current.message.startsWith(code)
      ? `${code}: ${current.message}`
      : current.message
  }
  return String(current)
}
