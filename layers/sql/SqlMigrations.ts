/**
 * The schema of context-compressor's SQL database, created by migrations.
 * One schema serves the summary cache, the compaction-state store (and the
 * sessions' memory between checkpoints), the persisted settings overrides and
 * the transcript archive; the SQL is kept to what SQLite and
 * PostgreSQL both read.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"

/**
 * The migrations, keyed `<id>_<name>` as `Migrator.fromRecord` expects. A
 * migration is never edited once released; a change is a new entry.
 *
 * @since 0.1.0
 * @category constants
 */
export const migrations: Record<string, Effect.Effect<void, SqlError, SqlClient.SqlClient>> = {
  "0001_summary_cache": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`CREATE TABLE IF NOT EXISTS summary_cache (
        digest TEXT PRIMARY KEY,
        namespace TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        model TEXT NOT NULL,
        summary TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        used_at BIGINT NOT NULL
      )`,
      sql`CREATE INDEX IF NOT EXISTS summary_cache_used_at ON summary_cache (used_at)`
    )),
  "0002_compaction_state": Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`CREATE TABLE IF NOT EXISTS compaction_state (
      session_id TEXT PRIMARY KEY,
      compactions INTEGER NOT NULL,
      state TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`
  ),
  "0003_settings_overrides": Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`CREATE TABLE IF NOT EXISTS settings_overrides (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`
  ),
  "0004_transcript_archive": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`CREATE TABLE IF NOT EXISTS transcript_archive (
        session_id TEXT NOT NULL,
        entry TEXT NOT NULL,
        position INTEGER NOT NULL,
        handle TEXT,
        message TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (session_id, entry, position)
      )`,
      Effect.zipRight(
        sql`CREATE INDEX IF NOT EXISTS transcript_archive_handle ON transcript_archive (session_id, handle)`,
        sql`CREATE INDEX IF NOT EXISTS transcript_archive_created_at ON transcript_archive (created_at)`
      )
    )),
  "0005_session_memory": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE IF NOT EXISTS session_memory (
      session_id TEXT PRIMARY KEY,
      version TEXT NOT NULL,
      memory TEXT NOT NULL,
      reported_tokens BIGINT,
      reported_basis TEXT,
      updated_at BIGINT NOT NULL
    )`)
}

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

const migrate = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: "context_compressor_migrations" })

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
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = Effect.flatMap(SqlClient.SqlClient, (sql) =>
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
 * doubling, jittered.
 *
 * @since 0.1.0
 * @category migrations
 */
export const retryTransient = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(self, {
    schedule: Schedule.exponential("20 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(6))),
    while: isTransient
  })
