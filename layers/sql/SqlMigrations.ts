/**
 * The schema of context-compressor's SQL database, created by migrations.
 * One schema serves the summary cache, the compaction-state store and the
 * persisted settings overrides; the SQL is kept to what SQLite and
 * PostgreSQL both read.
 *
 * @since 0.1.0
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"

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
  "0002_compaction_state": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE IF NOT EXISTS compaction_state (
      session_id TEXT PRIMARY KEY,
      compactions INTEGER NOT NULL,
      state TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`),
  "0003_settings_overrides": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE IF NOT EXISTS settings_overrides (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
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
