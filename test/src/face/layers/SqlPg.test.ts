import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as SqlPg from "../../../../src/face/layers/sql/SqlPg.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

describe("SqlPg", () => {
  it("redact masks the password of a URL and leaves anything else as it is", () => {
    assert.strictEqual(
      SqlPg.redact("postgres://worker:s3cret@db:5432/fleet?sslmode=require"),
      "postgres://worker:***@db:5432/fleet?sslmode=require"
    )
    assert.strictEqual(SqlPg.redact("postgres://worker@db/fleet"), "postgres://worker@db/fleet")
    assert.strictEqual(SqlPg.redact("not a url"), "not a url")
  })

  it.effect("a text that is not a postgres:// URL is refused before connecting", () =>
    Effect.scoped(Effect.gen(function*() {
      for (
        const [url, reason] of [
          ["db.internal:5432", "the scheme db.internal is not postgres"],
          ["fleet", "not a URL"],
          ["http://db/fleet", "the scheme http"]
        ] as const
      ) {
        const error = yield* Effect.flip(SqlPg.open({ url }))
        assert(error._tag === "ConnectError", url)
        assert.include(error.reason, reason, url)
      }
    })))
})

SqlDatabases.describeOn(SqlDatabases.postgres, "SqlPg", () => {
  it.effect("workers opening one new database at once all connect, and the migrations run once", () =>
    Effect.scoped(Effect.gen(function*() {
      const { url } = yield* SqlDatabases.postgres.database
      const clients = yield* Effect.all(Array.from({ length: 6 }, () => SqlPg.open({ url: Redacted.make(url) })), {
        concurrency: "unbounded"
      })
      const sql = clients[0]!
      const migrations = yield* sql<
        { readonly migration_id: number }
      >`SELECT migration_id FROM context_compressor_migrations ORDER BY migration_id`
      assert.deepStrictEqual(migrations.map((row) => row.migration_id), [1, 2, 3, 4, 5])
      const tables = yield* sql<
        { readonly table_name: string }
      >`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`
      assert.deepStrictEqual(tables.map((row) => row.table_name), [
        "compaction_state",
        "context_compressor_migrations",
        "session_memory",
        "settings_overrides",
        "summary_cache",
        "transcript_archive"
      ])
    })))

  it.effect("a database that does not exist, or a server that refuses the connection, is a ConnectError with the server's reason", () =>
    Effect.scoped(Effect.gen(function*() {
      const missing = new URL(SqlDatabases.postgres.url!)
      missing.pathname = "/no_such_database"
      const error = yield* Effect.flip(SqlPg.open({ url: missing.toString() }))
      assert(error._tag === "ConnectError")
      assert.include(error.reason, "database \"no_such_database\" does not exist")
      const refused = yield* Effect.flip(
        SqlPg.open({ url: "postgres://worker:s3cret@127.0.0.1:1/fleet", connectTimeoutMs: 2_000 })
      )
      assert(refused._tag === "ConnectError")
      assert.strictEqual(refused.url, "postgres://worker:***@127.0.0.1:1/fleet")
      assert.include(refused.reason, "ECONNREFUSED")
    })))
})
