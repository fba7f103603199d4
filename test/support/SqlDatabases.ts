/**
 * The SQL dialects the SQL suites run on, each a way to get an empty
 * database of its own: SQLite (a file, or memory), and PostgreSQL on the
 * server of the global setup (`postgresSetup.ts`), a database created for
 * each use and dropped after the file's tests. A suite written once over `SqlClient` runs
 * on each with `describeOn`; the PostgreSQL variant is skipped, with the
 * reason in its name, when there is no server.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { afterAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"

export interface Dialect {
  readonly name: "SQLite" | "PostgreSQL"
  /** Why the dialect's suites are skipped here, or undefined when they run. */
  readonly skip: string | undefined
  /** The server's URL (PostgreSQL), for a test that connects as a production layer would. */
  readonly url: string | undefined
  /**
   * An empty database for as long as the scope, and a layer that opens a new
   * client on it each time it is built (two builds: two workers on one database).
   */
  readonly database: Effect.Effect<
    { readonly client: Layer.Layer<SqlClient.SqlClient>; readonly url: string },
    never,
    Scope.Scope
  >
  /** An empty database of its own, gone with the layer. */
  readonly fresh: Layer.Layer<SqlClient.SqlClient>
}

export const sqlite: Dialect = {
  name: "SQLite",
  skip: undefined,
  url: undefined,
  database: Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "context-compressor-sql-"))),
      (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
    ),
    (directory) => {
      const filename = join(directory, "database.db")
      return { client: Layer.orDie(SqliteClient.layer({ filename })), url: filename }
    }
  ),
  fresh: Layer.orDie(SqliteClient.layer({ filename: ":memory:" }))
}

const provided = inject("postgres")

let created = 0

/** Runs one statement on the server's maintenance database. */
const onServer = (url: string, statement: string): Effect.Effect<void, SqlError> =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(url) }), (sql) => sql.unsafe(statement))).pipe(
    Effect.asVoid,
    Effect.provide(Reactivity.layer)
  )

// Dropped after the file's tests, not after each: a database dropped right after its clients close
// waits for their server processes to exit (PostgreSQL polls every 100 ms), which costs more than the test.
const toDrop: Array<string> = []
afterAll(async () => {
  if (!("url" in provided)) return
  const url = provided.url
  await Effect.runPromise(
    Effect.forEach(
      toDrop.splice(0),
      (name) => Effect.ignore(onServer(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
  )
})

const pgDatabase = (url: string) =>
  Effect.gen(function*() {
    const name = `context_compressor_test_${process.pid}_${created++}_${Math.random().toString(36).slice(2, 8)}`
    yield* Effect.orDie(onServer(url, `CREATE DATABASE ${name}`))
    toDrop.push(name)
    const database = new URL(url)
    database.pathname = `/${name}`
    return {
      client: Layer.orDie(PgClient.layer({ url: Redacted.make(database.toString()) })) as Layer.Layer<
        SqlClient.SqlClient
      >,
      url: database.toString()
    }
  })

export const postgres: Dialect = "url" in provided
  ? {
    name: "PostgreSQL",
    skip: undefined,
    url: provided.url,
    database: pgDatabase(provided.url),
    fresh: Layer.unwrapScoped(Effect.map(pgDatabase(provided.url), ({ client }) => client))
  }
  : {
    name: "PostgreSQL",
    skip: provided.skip,
    url: undefined,
    database: Effect.dieMessage(`no PostgreSQL server: ${provided.skip}`),
    fresh: Layer.die(new Error(`no PostgreSQL server: ${provided.skip}`))
  }

export const dialects: ReadonlyArray<Dialect> = [sqlite, postgres]

/**
 * A `describe` of `name` on `dialect`; when the dialect is not available, one
 * skipped test that gives the reason instead (the body is not even collected,
 * so no layer of it is built).
 */
export const describeOn = (dialect: Dialect, name: string, body: () => void): void => {
  if (dialect.skip === undefined) describe(`${name} on ${dialect.name}`, body)
  else describe(`${name} on ${dialect.name}`, () => it.skip(`skipped: ${dialect.skip}`, () => {}))
}
