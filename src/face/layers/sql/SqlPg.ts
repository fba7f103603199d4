/**
 * Connecting to PostgreSQL for the production layers: a pool of
 * `@effect/sql-pg` connections from a `postgres://` URL, checked with a first
 * query and brought up to the schema by `SqlMigrations.run`. The SQL layers of
 * the summary cache, the compaction-state store and the settings overrides
 * run on it unchanged: one database serves a fleet of workers.
 *
 * The declarations name `@effect/sql`'s `SqlClient`, not `@effect/sql-pg`'s
 * `PgClient`: `@effect/sql-pg` is an optional peer an application installs
 * only to connect, and a declaration of `context-compressor/layers` that
 * imported its types would not compile (`skipLibCheck: false`) where it is not
 * installed. The pool is a `PgClient` all the same, and `layer` provides it
 * under `PgClient.PgClient` too, for code that has `@effect/sql-pg`'s types.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as OptionalPackage from "../../models/OptionalPackage.js"
import * as SqlMigrations from "./SqlMigrations.js"

/**
 * The environment variable the command line reads a database URL from when
 * `--database-url` is not given.
 *
 * @since 0.1.0
 * @category constants
 */
export const urlEnv = "CONTEXT_COMPRESSOR_DATABASE_URL"

/**
 * How long connecting may take before it fails: 5 seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultConnectTimeoutMs = 5_000

/**
 * How many connections the pool keeps at most: 10. Migrating needs two.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxConnections = 10

/**
 * A PostgreSQL database that could not be reached or brought up to the
 * schema: the URL (its password masked) and the reason, in one line.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConnectError extends Schema.TaggedError<ConnectError>()("ConnectError", {
  url: Schema.String,
  reason: Schema.String
}) {}

/**
 * Options of the connection.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** `postgres://user:password@host:port/database` (or `postgresql://`), query parameters as `pg` reads them. */
  readonly url: string | Redacted.Redacted<string>
  /** How long connecting may take (default `defaultConnectTimeoutMs`). */
  readonly connectTimeoutMs?: number | undefined
  /** The most connections the pool opens (default `defaultMaxConnections`, at least 2). */
  readonly maxConnections?: number | undefined
  /** The `application_name` the server shows for the connections (default `context-compressor`). */
  readonly applicationName?: string | undefined
}

/**
 * The URL with its password masked, for messages and logs; a text that is
 * not a URL is returned as it is.
 *
 * @since 0.1.0
 * @category utils
 */
export const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password === "") return url
    parsed.password = "***"
    return parsed.toString()
  } catch {
    return url
  }
}

const validate = (url: string): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "not a URL: expected postgres://user:password@host:port/database"
  }
  return parsed.protocol === "postgres:" || parsed.protocol === "postgresql:"
    ? undefined
    : `the scheme ${parsed.protocol.replace(/:$/, "")} is not postgres or postgresql`
}

/** The modules a connection needs. */
interface Client {
  readonly PgClient: typeof PgClient
  readonly Reactivity: Awaited<ReturnType<typeof Compat.importReactivity>>
}

// The PostgreSQL client, an optional peer dependency, imported the first time a connection is opened (with the
// `Reactivity` it needs). Not exported: its type is @effect/sql-pg's module (of its 0.x line on Effect 3, of its
// 4.x line on Effect 4).
const loadClient: Effect.Effect<Client, OptionalPackage.MissingPackageError> = OptionalPackage.load(
  "@effect/sql-pg",
  "PostgreSQL (--database-url, Production.layerPg, SqlPg.layer)",
  async () => ({
    PgClient: await import("@effect/sql-pg/PgClient"),
    Reactivity: await Compat.importReactivity()
  })
)

const connect = (options: Options, url: string, { PgClient, Reactivity }: Client) =>
  Effect.gen(function*() {
    const sql = yield* Effect.provideServiceEffect(
      PgClient.make({
        url: Redacted.make(url),
        connectTimeout: Duration.millis(options.connectTimeoutMs ?? defaultConnectTimeoutMs),
        maxConnections: Math.max(2, options.maxConnections ?? defaultMaxConnections),
        applicationName: options.applicationName ?? "context-compressor"
      }),
      Reactivity.Reactivity,
      Reactivity.make
    )
    yield* Effect.provideService(SqlMigrations.run, Compat.SqlClient, sql)
    return sql
  })

/**
 * Connects to the database of `url` and runs the migrations (under an
 * advisory lock, so workers starting together migrate once). The pool lasts
 * as long as the scope. A URL that is not a `postgres://` one, a server that
 * cannot be reached or refuses the login, and a failed migration fail with
 * `ConnectError`; without `@effect/sql-pg` installed, it fails with
 * `OptionalPackage.MissingPackageError`.
 *
 * @example
 * ```ts
 * import { SqlPg } from "context-compressor/layers"
 * import { Effect, Redacted } from "effect"
 *
 * // In a scoped program: the pool lasts as long as the scope (connecting needs a server; not run here).
 * export const connected = Effect.scoped(
 *   Effect.gen(function*() {
 *     const sql = yield* SqlPg.open({ url: Redacted.make("postgres://agents@db.internal/agents"), maxConnections: 4 })
 *     return sql
 *   })
 * )
 *
 * // A URL that is not a postgres:// one fails with ConnectError before anything is opened, its password masked.
 * const error = await Effect.runPromise(
 *   Effect.scoped(Effect.flip(SqlPg.open({ url: "mysql://agents:secret@db.internal/agents" })))
 * )
 * assert.strictEqual(error._tag, "ConnectError")
 * assert.ok(!JSON.stringify(error).includes("secret"))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = (
  options: Options
): Effect.Effect<Compat.SqlClient, ConnectError | OptionalPackage.MissingPackageError, Scope.Scope> => openPg(options)

// `open`, typed as the PgClient it gives (on Effect 3 a PgClient is a SqlClient; on Effect 4 the pool is both).
const openPg = (
  options: Options
): Effect.Effect<
  PgClient.PgClient & Compat.SqlClient,
  ConnectError | OptionalPackage.MissingPackageError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const url = typeof options.url === "string" ? options.url : Redacted.value(options.url)
    const invalid = validate(url)
    if (invalid !== undefined) return yield* new ConnectError({ url: redact(url), reason: invalid })
    const client = yield* loadClient
    // A failed connection closes what it opened, not the caller's scope.
    const scope = yield* Compat.forkScope(yield* Effect.scope)
    const opened = yield* Effect.exit(Compat.provideScope(connect(options, url, client), scope))
    if (Exit.isSuccess(opened)) return opened.value
    yield* Scope.close(scope, opened)
    if (Compat.hasInterruptsOnly(opened.cause)) return yield* Effect.interrupt
    return yield* new ConnectError({ url: redact(url), reason: SqlMigrations.describeCause(opened.cause) })
  })

/**
 * Provides a `SqlClient` on the database of `url`, migrated (the context
 * also holds the pool under `@effect/sql-pg`'s `PgClient.PgClient`, which the
 * type does not name). Fails to build with `ConnectError`, or
 * `OptionalPackage.MissingPackageError` without `@effect/sql-pg` installed.
 *
 * @example
 * ```ts
 * import { Production, SqlPg, SummaryCacheSql } from "context-compressor/layers"
 * import { Layer, Redacted } from "effect"
 *
 * // One pool of connections for the parts kept in PostgreSQL (here the summary cache; see Production.layerPg).
 * const sql = SqlPg.layer({ url: Redacted.make("postgres://agents@db.internal/agents"), applicationName: "agent" })
 * export const cache = SummaryCacheSql.layer({ maxAgeMs: 7 * 24 * 3_600_000 }).pipe(Layer.provide(sql))
 * export const services = Production.layerMemory().pipe(Layer.provide(cache))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<Compat.SqlClient, ConnectError | OptionalPackage.MissingPackageError> =>
  Compat.layerScopedContext(
    Effect.flatMap(
      loadClient,
      ({ PgClient }) =>
        Effect.map(
          openPg(options),
          (sql) => Context.make(PgClient.PgClient, sql).pipe(Context.add(Compat.SqlClient, sql))
        )
    )
  )
