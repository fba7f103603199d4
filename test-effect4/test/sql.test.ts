/**
 * The SQL layers of the one source on Effect 4, beside the root suite's SQL files that run here too
 * (`TranscriptArchiveSql`, `SqlPg`, `SqlTransient`): a SQLite file opened by `SqliteNode` and
 * migrated by the shared migrations once, and `SqlPg` with the store, the cache and the archive on
 * PostgreSQL through `@effect/sql-pg` 4.x, on the run's server (`test/support/postgresSetup.ts`;
 * skipped, with the reason, without one).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlMigrations, SqlPg, TranscriptArchiveSql } from "../../src/effect4/layers/index.js"
import * as SqliteNode from "../../src/effect4/layers/sql/SqliteNode.js"
import * as CompactionStoreSql from "../../src/face/layers/CompactionStoreSql.js"
import * as SummaryCacheSql from "../../src/face/layers/SummaryCacheSql.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as CompactionStore from "../../src/face/services/CompactionStore.js"
import * as SummaryCache from "../../src/face/services/SummaryCache.js"
import * as TranscriptArchive from "../../src/face/services/TranscriptArchive.js"
import * as SqlDatabases from "../../test/support/SqlDatabases.js"

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

describe("the SQL layers on Effect 4", () => {
  it.effect("a SQLite file of node:sqlite is migrated once by the shared migrations, and the archive runs on it", () =>
    Effect.gen(function*() {
      const filename = join(mkdtempSync(join(tmpdir(), "e4-sql-")), "archive.db")
      const sql = yield* SqliteNode.open({ filename })
      // Migrated when opened: running the migrations again does nothing.
      assert.deepStrictEqual(yield* Effect.provideService(SqlMigrations.run, SqlClient.SqlClient, sql), [])
      const stats = yield* Effect.gen(function*() {
        const archive = yield* TranscriptArchive.TranscriptArchive
        assert.strictEqual(yield* archive.write(entry("s1")), TranscriptArchiveSql.locate(entry("s1")))
        return yield* Effect.flatMap(Effect.service(TranscriptArchiveSql.SqlArchive), (inspection) => inspection.stats)
      }).pipe(Effect.provide(TranscriptArchiveSql.layer()), Effect.provideService(SqlClient.SqlClient, sql))
      assert.deepStrictEqual(stats, { sessions: 1, entries: 1, messages: 2, bytes: stats.bytes })
    }).pipe(Effect.scoped))

  it.effect("describeCause names the innermost cause with its code, on SQLite and PostgreSQL alike", () =>
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

SqlDatabases.describeOn(SqlDatabases.postgres, "the SQL layers on Effect 4", () => {
  it.effect("SqlPg connects and migrates; the store, the cache and the archive run on it", () =>
    Effect.gen(function*() {
      const { url } = yield* SqlDatabases.postgres.database
      yield* Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        assert.isTrue(Option.isNone(yield* store.load("s1")))
        const cache = yield* SummaryCache.SummaryCache
        yield* cache.store(key, "the first summary")
        yield* cache.store(key, "a second summary")
        assert.deepStrictEqual(yield* cache.lookup(key), Option.some("the first summary"))
        const archive = yield* TranscriptArchive.TranscriptArchive
        yield* archive.write(entry("s1"))
        const stats = yield* Effect.flatMap(Effect.service(TranscriptArchiveSql.SqlArchive), (sql) => sql.stats)
        assert.strictEqual(stats.messages, 2)
      }).pipe(
        Effect.provide(
          Layer.mergeAll(CompactionStoreSql.layer, SummaryCacheSql.layer(), TranscriptArchiveSql.layer()).pipe(
            Layer.provide(SqlPg.layer({ url: Redacted.make(url), applicationName: "context-compressor-e4-test" }))
          )
        )
      )
    }).pipe(Effect.scoped))
})
