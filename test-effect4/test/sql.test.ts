/**
 * The SQL layers of the one source on Effect 4: the transcript archive on a SQLite file of
 * `node:sqlite` (the compat's `openSqlite`), and `SqlPg` with the store, the cache and the archive
 * on PostgreSQL through `@effect/sql-pg` 4.x, on a throwaway server (`test/support/PostgresCluster`,
 * or `CONTEXT_COMPRESSOR_TEST_DATABASE_URL`); without one, the PostgreSQL tests are skipped with
 * the reason.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import { classifySqliteError, SqlError } from "effect/sql/SqlError"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as CompactionStoreSql from "../../effect4/layers/CompactionStoreSql.js"
import { SqlMigrations, SqlPg, TranscriptArchiveSql } from "../../effect4/layers/index.js"
import * as SqliteNode from "../../effect4/layers/sql/SqliteNode.js"
import * as SummaryCacheSql from "../../effect4/layers/SummaryCacheSql.js"
import * as CompactionStore from "../../effect4/services/CompactionStore.js"
import * as SummaryCache from "../../effect4/services/SummaryCache.js"
import * as TranscriptArchive from "../../effect4/services/TranscriptArchive.js"
import * as Transcript from "../../effect4/src/Transcript.js"
import * as PostgresCluster from "../../test/support/PostgresCluster.js"

const messages = [
  new Transcript.UserMessage({ id: "m1", content: "Fix the parser." }),
  new Transcript.AssistantMessage({ id: "m2", content: "Done: the parser reads nested lists now.", toolCalls: [] })
]

const entry = (sessionId: string): TranscriptArchive.Entry => ({ sessionId, compaction: 1, messages })

const key = {
  namespace: "ns",
  schemaVersion: SummaryCache.schemaVersion,
  model: "m",
  summarizer: { kind: "custom" },
  request: "R"
}

/** Writes an entry, and reads its first message back by its handle, on the current SqlClient's archive. */
const archiveRoundTrip = Effect.gen(function*() {
  const archive = yield* TranscriptArchive.TranscriptArchive
  const name = yield* archive.write(entry("s1"))
  assert.strictEqual(name, TranscriptArchiveSql.locate(entry("s1")))
  const stats = yield* Effect.flatMap(Effect.service(TranscriptArchiveSql.SqlArchive), (sql) => sql.stats)
  assert.deepStrictEqual(stats.entries, 1)
  assert.deepStrictEqual(stats.messages, 2)
  return stats
})

describe("the SQL layers on Effect 4", () => {
  it.effect("the transcript archive on a SQLite file of node:sqlite, migrated by the shared migrations", () =>
    Effect.gen(function*() {
      const filename = join(mkdtempSync(join(tmpdir(), "e4-sql-")), "archive.db")
      const sql = yield* SqliteNode.open({ filename })
      // Migrated once: running the migrations again does nothing.
      assert.deepStrictEqual(yield* Effect.provideService(SqlMigrations.run, SqlClient.SqlClient, sql), [])
      const stats = yield* archiveRoundTrip.pipe(
        Effect.provide(TranscriptArchiveSql.layer()),
        Effect.provideService(SqlClient.SqlClient, sql)
      )
      assert.strictEqual(stats.sessions, 1)
    }).pipe(Effect.scoped))

  it.effect("describeCause names the innermost cause with its code", () =>
    Effect.sync(() => {
      const inner = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })
      const error = new Error("Failed to execute statement", { cause: inner })
      assert.strictEqual(SqliteNode.describeCause(Cause.fail(error)), "SQLITE_BUSY: database is locked")
      // A connection to a name with several addresses fails with all of them and no message of its own.
      const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })
      assert.strictEqual(
        SqliteNode.describeCause(Cause.fail(new AggregateError([refused], ""))),
        "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1"
      )
    }))
})

/** An error of `effect/sql` as the SQLite client makes it: the driver's error classified, under `message`. */
const sqliteError = (message: string, code: string, text: string) =>
  new SqlError({
    reason: classifySqliteError(Object.assign(new Error(text), { code }), { message, operation: "execute" })
  })

describe("SqlMigrations.retryTransient on Effect 4's SqlError", () => {
  it("a race of processes opening one new file is transient; a constraint or a plain busy file is not", () => {
    assert.isTrue(
      SqlMigrations.isTransient(sqliteError("Failed to prepare statement", "SQLITE_ERROR", "no such table: x"))
    )
    assert.isTrue(
      SqlMigrations.isTransient(
        sqliteError("Failed to execute statement", "SQLITE_BUSY_SNAPSHOT", "database is locked")
      )
    )
    assert.isFalse(
      SqlMigrations.isTransient(sqliteError("Failed to execute statement", "SQLITE_CONSTRAINT", "constraint failed"))
    )
    assert.isFalse(
      SqlMigrations.isTransient(sqliteError("Failed to execute statement", "SQLITE_BUSY", "database is locked"))
    )
  })

  it.live("retries a transient failure until it passes, and gives up on another at once", () =>
    Effect.gen(function*() {
      let tries = 0
      const flaky = Effect.suspend(() =>
        ++tries < 3
          ? Effect.fail(sqliteError("Failed to prepare statement", "SQLITE_SCHEMA", "database schema has changed"))
          : Effect.succeed("read")
      )
      assert.strictEqual(yield* SqlMigrations.retryTransient(flaky).pipe(Effect.orDie), "read")
      assert.strictEqual(tries, 3)
      let once = 0
      const broken = Effect.suspend(
        () => (once++,
          Effect.fail(sqliteError("Failed to execute statement", "SQLITE_CONSTRAINT", "constraint failed")))
      )
      yield* Effect.result(SqlMigrations.retryTransient(broken))
      assert.strictEqual(once, 1)
    }))
})

const given = process.env["CONTEXT_COMPRESSOR_TEST_DATABASE_URL"]?.trim()
const available = given !== undefined && given !== "" ? { available: true as const } : PostgresCluster.availability()
const skip = process.env["CONTEXT_COMPRESSOR_TEST_POSTGRES"] === "skip"
  ? "CONTEXT_COMPRESSOR_TEST_POSTGRES=skip"
  : available.available
  ? undefined
  : available.reason

describe.skipIf(skip !== undefined)(
  `the SQL layers on PostgreSQL on Effect 4${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    let cluster: PostgresCluster.Cluster | undefined
    let url = given ?? ""
    beforeAll(async () => {
      if (url === "") {
        cluster = await PostgresCluster.start()
        url = cluster.url
      }
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it.effect("SqlPg connects and migrates; the store, the cache and the archive run on it", () =>
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        assert.isTrue(Option.isNone(yield* store.load(`e4-${process.pid}-${Date.now()}`)))
        const cache = yield* SummaryCache.SummaryCache
        yield* cache.store(key, "the first summary")
        assert.deepStrictEqual(yield* cache.lookup(key), Option.some("the first summary"))
        const archive = yield* TranscriptArchive.TranscriptArchive
        const sessionId = `e4-${process.pid}-${Date.now()}`
        yield* archive.write(entry(sessionId))
        const stats = yield* Effect.flatMap(Effect.service(TranscriptArchiveSql.SqlArchive), (sql) => sql.stats)
        assert.isAtLeast(stats.messages, 2)
      }).pipe(
        Effect.provide(
          Layer.mergeAll(CompactionStoreSql.layer, SummaryCacheSql.layer(), TranscriptArchiveSql.layer()).pipe(
            Layer.provide(SqlPg.layer({ url: Redacted.make(url), applicationName: "context-compressor-e4-test" }))
          )
        )
      ))

    it.effect("a server that cannot be reached fails with ConnectError, the password masked", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          SqlPg.open({ url: "postgres://worker:s3cret@127.0.0.1:1/fleet", connectTimeoutMs: 2_000 })
        )
        assert.isTrue(error._tag === "ConnectError" && error.reason.includes("ECONNREFUSED"), JSON.stringify(error))
        assert.notInclude(JSON.stringify(error), "s3cret")
      }).pipe(Effect.scoped))
  }
)
