/**
 * The SQL dialects the SQL suites run on, each a way to get an empty
 * database of its own: SQLite (a file, or memory), and PostgreSQL on the
 * server of the global setup (`postgresSetup.ts`), a database created for
 * each use and dropped after the file's tests. A suite written once over `SqlClient` runs
 * on each with `describeOn`; the PostgreSQL variant is skipped, with the
 * reason in its name, when there is no server.
 */
import { SqlClient } from "#compat"
import type * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { afterAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
// The type of what the global setup gives, and its declaration of `inject("postgres")` (on Effect 4 too).
import type { Provided } from "./postgresSetup.js"

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
    { readonly client: Layer.Layer<Compat.SqlClient>; readonly url: string },
    never,
    Scope.Scope
  >
  /** An empty database of its own, gone with the layer. */
  readonly fresh: Layer.Layer<Compat.SqlClient>
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
      return { client: TestCompat.sqliteClient(filename), url: filename }
    }
  ),
  fresh: TestCompat.sqliteClient(":memory:")
}

const provided: Provided = inject("postgres")

let created = 0

/** Runs one statement on the server's maintenance database. */
const onServer: (url: string, statement: string) => Effect.Effect<void, Compat.SqlError> = TestCompat.onPgServer

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
      client: TestCompat.pgClient(database.toString()),
      url: database.toString()
    }
  })

export const postgres: Dialect = "url" in provided
  ? {
    name: "PostgreSQL",
    skip: undefined,
    url: provided.url,
    database: pgDatabase(provided.url),
    fresh: TestCompat.unwrapLayerScoped(Effect.map(pgDatabase(provided.url), ({ client }) => client))
  }
  : {
    name: "PostgreSQL",
    skip: provided.skip,
    url: undefined,
    database: Effect.die(new Error(`no PostgreSQL server: ${provided.skip}`)),
    fresh: Layer.effect(SqlClient, Effect.die(new Error(`no PostgreSQL server: ${provided.skip}`)))
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
