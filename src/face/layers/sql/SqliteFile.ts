/**
 * Opening a SQLite file for the production layers: its directory created,
 * a busy timeout, write-ahead logging, and the schema migrated. Shared by the
 * summary cache and the compaction-state store.
 *
 * @since 0.1.0
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as OptionalPackage from "../../models/OptionalPackage.js"
import * as SqliteReading from "./SqliteReading.js"
import * as SqlMigrations from "./SqlMigrations.js"

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
 * What went wrong, in one line: the innermost cause with its code
 * (`SQLITE_BUSY: database is locked`, `ENOTDIR: not a directory, mkdir …`).
 *
 * @since 0.1.0
 * @category utils
 */
export const describeCause: (cause: Cause.Cause<unknown>) => string = SqlMigrations.describeCause

/**
 * What a SQLite failure means to whoever installs the package, when it is one
 * of installation: better-sqlite3 installed without its native module built
 * (`--ignore-scripts`, pnpm's default, a Node upgrade). One line naming the
 * command to run; `undefined` for any other failure. (A missing better-sqlite3
 * fails earlier, with `MissingPackageError`'s line.)
 *
 * @since 0.1.0
 * @category utils
 */
export const installProblemOf = (reason: string): string | undefined =>
  /Could not locate the bindings file|compiled against a different Node\.js version|invalid ELF header|better_sqlite3\.node/
      .test(reason)
    ? "better-sqlite3 is installed but its native module is not built (installed with --ignore-scripts?): npm rebuild better-sqlite3"
    : undefined

// The client (and better-sqlite3, a native addon) is loaded when a file is first opened, so that
// a program that keeps its state in memory or in PostgreSQL never loads nor needs it.
// The client imports better-sqlite3's JavaScript; the addon itself is loaded by the first connection.
const loadClient = OptionalPackage.load(
  "better-sqlite3",
  "SQLite",
  () => import("@effect/sql-sqlite-node/SqliteClient")
)

const connect = (filename: string, busyTimeoutMs: number) =>
  Effect.gen(function*() {
    const SqliteClient = yield* loadClient
    if (filename !== ":memory:" && filename !== "") {
      yield* Effect.try(() => Fs.mkdirSync(Path.dirname(filename), { recursive: true }))
    }
    // WAL is switched on below, after the busy timeout: the client's own switch would wait
    // better-sqlite3's 5 s on a locked file. Opening does not read the file; the first pragma does.
    const sql = yield* Effect.provideServiceEffect(
      SqliteClient.make({ filename, disableWAL: true }),
      Reactivity.Reactivity,
      Reactivity.make
    )
    yield* sql.unsafe(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`)
    yield* sql.unsafe("PRAGMA journal_mode = WAL")
    yield* Effect.provideService(SqlMigrations.run, SqlClient.SqlClient, sql).pipe(SqlMigrations.retryTransient)
    // The schema read once here, after the migrations of every process that raced this one.
    yield* sql.unsafe("SELECT count(*) FROM sqlite_master").pipe(SqlMigrations.retryTransient)
    return sql as SqlClient.SqlClient
  })

/** better-sqlite3, named apart so that no type of it is asked for (it ships none). */
const betterSqlite3: string = "better-sqlite3"

/**
 * Why SQLite cannot be used in this installation, as one line naming what to
 * run (`npm install better-sqlite3`, or `npm rebuild better-sqlite3` for a
 * native module that was never built), or `undefined` when it can: the
 * package is loaded and an in-memory database opened and closed. Any other
 * failure is `undefined` too (the real open reports it). `importModule` is
 * the `import()` of better-sqlite3 (a test may give another).
 *
 * @since 0.1.0
 * @category utils
 */
export const unavailable = (
  importModule: () => Promise<unknown> = () => import(betterSqlite3)
): Effect.Effect<string | undefined> =>
  OptionalPackage.load("better-sqlite3", "SQLite", importModule).pipe(
    Effect.flatMap((module) =>
      Effect.try(() => {
        const Database = ((module as { readonly default?: unknown }).default ?? module) as new(
          filename: string
        ) => { close(): void }
        new Database(":memory:").close()
      })
    ),
    Effect.as(undefined),
    Effect.catchAll((error) =>
      Effect.succeed(error._tag === "MissingPackageError" ? error.message : installProblemOf(String(error.error)))
    ),
    Effect.catchAllDefect(() => Effect.succeed(undefined))
  )

/**
 * Opens a SQLite file (creating it and its directory when missing), sets its
 * busy timeout, switches it to write-ahead logging and runs the migrations.
 * The connection lasts as long as the scope. A file that is not a database,
 * is locked past the timeout or cannot be written fails with `OpenError` and
 * is left untouched.
 *
 * @example
 * ```ts
 * import { SqliteFile } from "context-compressor/layers"
 * import { Effect } from "effect"
 *
 * // Opened and migrated: the package's tables are there for as long as the scope lasts.
 * const tables = await Effect.runPromise(
 *   Effect.scoped(
 *     Effect.gen(function*() {
 *       const sql = yield* SqliteFile.openSqlite({ filename: ":memory:" })
 *       return yield* sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
 *     })
 *   )
 * )
 * assert.ok(tables.some((table) => table.name === "compaction_state"))
 * assert.ok(tables.some((table) => table.name === "summary_cache"))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const openSqlite = (options: {
  readonly filename: string
  readonly busyTimeoutMs?: number | undefined
}): Effect.Effect<SqlClient.SqlClient, OpenError, Scope.Scope> =>
  Effect.gen(function*() {
    // A failed open closes what it opened, not the caller's scope.
    const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const opened = yield* Effect.exit(Scope.extend(connect(options.filename, options.busyTimeoutMs ?? 5_000), scope))
    if (Exit.isSuccess(opened)) return opened.value
    yield* Scope.close(scope, opened)
    if (Cause.isInterruptedOnly(opened.cause)) return yield* Effect.interrupt
    const reason = describeCause(opened.cause)
    return yield* new OpenError({ path: options.filename, reason: installProblemOf(reason) ?? reason })
  })

/**
 * Opens a SQLite file for a reader (`compact`'s settings, `settings get`):
 * as {@link openSqlite} does, but a file that may not be written (a read-only
 * folder or file system, where SQLite cannot keep its write-ahead log beside
 * it) is read from a private copy in the temporary folder, removed when the
 * scope closes. A missing file is created, as {@link openSqlite} does, and
 * where it cannot be, an empty database in memory stands for it.
 *
 * @example
 * ```ts
 * import { SqliteFile } from "context-compressor/layers"
 * import { Effect } from "effect"
 * import * as Fs from "node:fs"
 * import * as Os from "node:os"
 * import * as Path from "node:path"
 *
 * // What `settings get` does: read the settings overrides of a state file, whether or not it may be written.
 * const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "state-"))
 * const overrides = await Effect.runPromise(
 *   Effect.scoped(
 *     Effect.gen(function*() {
 *       const sql = yield* SqliteFile.openSqliteReading({ filename: Path.join(folder, "state.sqlite") })
 *       return yield* sql`SELECT * FROM settings_overrides`
 *     })
 *   )
 * )
 * assert.deepStrictEqual(overrides, [])
 * Fs.rmSync(folder, { recursive: true, force: true })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const openSqliteReading: (options: {
  readonly filename: string
  readonly busyTimeoutMs?: number | undefined
}) => Effect.Effect<SqlClient.SqlClient, OpenError, Scope.Scope> = SqliteReading.reading(
  openSqlite,
  (path, reason) => new OpenError({ path, reason })
)
