/**
 * The Effect 3 side of the tests' compat (`#test-compat`): what a test of the root suite needs whose
 * API differs between Effect 3 and Effect 4 and that the face's `#compat` does not give, because it
 * is the tests' own (a fast-check arbitrary of a Schema, the face's runner of the core's steps) or
 * reads the face's answers (the compat `Result`, an exit's cause). The root suite's files that run
 * on both Effects (test-effect4/tsconfig.json, docs/effect4.md "Tests on Effect 4") import it as
 * `#test-compat`: vitest.config.ts and tsconfig.json resolve that here, test-effect4's vitest
 * plugin and tsconfig to `Effect4.ts`, which exports the same names. Names follow Effect 4.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlError from "@effect/sql/SqlError"
import { it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import type * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import type * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberStatus from "effect/FiberStatus"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import type * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import type * as fc from "fast-check"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import type * as CompatAi from "../../../src/apps/effect-ai/compat/Ai3.js"
import type * as HttpCompat from "../../../src/apps/http/compat/Http3.js"
import type * as Steps from "../../../src/core/Steps.js"
import type * as Compat from "../../../src/face/compat/Effect3.js"
import * as Cooperative from "../../../src/face/engine/internal/Cooperative.js"

/** The major of Effect the tests run on (typed as either, so a test may ask which). */
export const major: 3 | 4 = 3

/** A fast-check arbitrary of a Schema's values (Effect 3's `Arbitrary.make`, which is one). */
export const arbitrary = <A, I, R>(schema: Schema.Schema<A, I, R>): fc.Arbitrary<A> => Arbitrary.make(schema)

/** Whether a compat `Result` succeeded (`Either.isRight`). */
export const isSuccess: <A, E>(result: Compat.Result<A, E>) => boolean = Either.isRight

/** Whether a compat `Result` failed (`Either.isLeft`). */
export const isFailure: <A, E>(result: Compat.Result<A, E>) => boolean = Either.isLeft

/** A compat `Result`'s value, or a throw (`Either.getOrThrow`). */
export const getOrThrow: <A, E>(result: Compat.Result<A, E>) => A = Either.getOrThrow

/** A compat `Result`'s value, or `orElse()` (`Either.getOrElse`). */
export const getOrElse = <A, E, B>(result: Compat.Result<A, E>, orElse: () => B): A | B =>
  Either.getOrElse(result, orElse)

/** A compat `Result`'s error, if it failed (`Either.getLeft`). */
export const getFailure: <A, E>(result: Compat.Result<A, E>) => Option.Option<E> = Either.getLeft

/** A service's tag, the class a service is declared as: its `of` and the service it gives (Effect 3's `Context.Tag`). */
export type ServiceTag = Context.Tag<unknown, object>

/** Whether a value is a service's tag (`Context.isTag`). */
export const isServiceTag: (input: unknown) => input is ServiceTag = Context.isTag

/** Whether a cause is one defect and nothing else (a `Die` cause). */
export const isDieOnly = <E>(cause: Cause.Cause<E>): boolean => cause._tag === "Die"

/** The core's steps run by the face's runner, giving the event loop a turn at every step (`Cooperative.run`). */
export const runPausing = <A>(steps: Steps.Steps<A>): Effect.Effect<A> => Cooperative.run(steps, Cooperative.slice(0))

/** Runs an effect in a fiber of its own, a child of the running one (`Effect.fork`). */
export const forkChild: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Fiber.Fiber<A, E>, never, R> =
  Effect.fork

/** A fiber's exit if it has ended, without waiting for it (`Fiber.poll`). */
export const poll: <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.Effect<Option.Option<Exit.Exit<A, E>>> = Fiber.poll

/** Waits until every fiber is suspended, then lets the running one go first once (Effect 3's `Fiber.status`). */
export const allSuspended = (fibers: ReadonlyArray<Fiber.Fiber<unknown, unknown>>): Effect.Effect<void> =>
  Effect.repeat(
    Effect.map(
      Effect.forEach(fibers, (fiber) => Fiber.status(fiber as Fiber.RuntimeFiber<unknown, unknown>)),
      (statuses) => statuses.every(FiberStatus.isSuspended)
    ),
    { until: (suspended) => suspended, schedule: Schedule.forever }
  ).pipe(Effect.zipLeft(Effect.yieldNow()))

/** Moves the test clock on by `duration`, running what was due by then (`TestClock.adjust`). */
export const adjustClock = (duration: Compat.DurationInput): Effect.Effect<void> => TestClock.adjust(duration)

/**
 * Runs an effect on a test clock of its own, as `it.effect` runs its tests: for the effect of a
 * property (`effectProp` of test/support/Property.ts runs it on the live clock). Effect 3's `TestContext`.
 */
export const withTestClock = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provide(self, TestContext.TestContext)

/** The next value of a subscription, waiting for one (a `Queue.Dequeue`'s `take`). */
export const take = <A>(subscription: Compat.Subscription<A>): Effect.Effect<A> => subscription.take

// --- effect-ai ---

/** What kind of failure an `AiError` is, and its description (@effect/ai's error classes: `MalformedInput`, …). */
export const aiErrorOf = (
  error: CompatAi.AiError
): { readonly kind: string; readonly description: string | undefined } => ({
  kind: error._tag,
  description: "description" in error ? error.description : undefined
})

/** The kind {@link aiErrorOf} names of a call the model cannot take as it is (`invalidUserInputError`). */
export const invalidUserInputKind = "MalformedInput"

/** A tool called through a toolkit's handlers: its result (Effect 3's `handle` answers it). */
export const handleTool = (
  toolkit: { readonly handle: (name: never, params: never) => Effect.Effect<unknown, unknown, unknown> },
  name: string,
  params: unknown
): Effect.Effect<{ readonly isFailure: boolean; readonly result: unknown }, unknown> =>
  toolkit.handle(name as never, params as never) as Effect.Effect<
    { readonly isFailure: boolean; readonly result: unknown },
    unknown
  >

// --- layers: sql ---

/** A client of a SQLite file (or `:memory:`) for as long as the layer (`@effect/sql-sqlite-node`, better-sqlite3). */
export const sqliteClient = (filename: string): Layer.Layer<Compat.SqlClient> =>
  Layer.orDie(SqliteClient.layer({ filename }))

/** A second connection to a SQLite file, to hold a lock on it beside a client (`exec` chains; `close` closes once). */
export interface SqliteConnection {
  readonly exec: (sql: string) => SqliteConnection
  readonly close: () => void
}

/** A connection to the SQLite file `filename` of the driver the SQLite layers use (better-sqlite3 on Effect 3). */
export const sqliteConnection = (filename: string): SqliteConnection => {
  const Database = createRequire(import.meta.url)("better-sqlite3") as new(filename: string) => {
    exec(sql: string): unknown
    close(): void
  }
  const database = new Database(filename)
  const connection: SqliteConnection = {
    exec: (sql) => {
      database.exec(sql)
      return connection
    },
    close: () => database.close()
  }
  return connection
}

/**
 * The code a failure of the SQLite driver carries, which the layers' warnings name before its message,
 * for the failure SQLite names `sqliteCode`. better-sqlite3 on Effect 3 names each by SQLite's own code (`SQLITE_BUSY`, …).
 */
export const sqliteErrorCode = (sqliteCode: string): string => sqliteCode

/** A client of the PostgreSQL database of `url` for as long as the layer (`@effect/sql-pg` 0.x). */
export const pgClient = (url: string): Layer.Layer<Compat.SqlClient> =>
  Layer.orDie(PgClient.layer({ url: Redacted.make(url) })) as Layer.Layer<Compat.SqlClient>

/** Runs one statement on the PostgreSQL database of `url`, on a connection of its own. */
export const onPgServer = (url: string, statement: string): Effect.Effect<void, Compat.SqlError> =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(url) }), (sql) => sql.unsafe(statement))).pipe(
    Effect.asVoid,
    Effect.provide(Reactivity.layer)
  )

/** The layer a scoped effect makes, its scope the layer's (Effect 3's `Layer.unwrapScoped`). */
export const unwrapLayerScoped: typeof Layer.unwrapScoped = Layer.unwrapScoped

/** A failure of a SQL statement as the SQLite client makes it: the driver's error under `message` (`@effect/sql`'s `SqlError`). */
export const sqlError = (message: string, cause: unknown): Compat.SqlError => new SqlError.SqlError({ message, cause })

/**
 * @effect/vitest's `it`, as it is: `it.scopedLive` is a test of a scoped effect on the live clock,
 * `it.scoped` one on the test clock (Effect 4's `it` has them too, from `#test-compat`).
 */
export { it }

/** `console` with `log` and `error` recorded in `out` and `err` (Effect 3's console methods are effects). */
export const recordingConsole = (
  console: Console.Console,
  out: Array<string>,
  err: Array<string>
): Console.Console => ({
  ...console,
  log: (...parts) => Effect.sync(() => void out.push(parts.join(" "))),
  error: (...parts) => Effect.sync(() => void err.push(parts.join(" ")))
})

/** Runs an effect with another console (Effect 3's `Effect.withConsole`). */
export const withConsole =
  (console: Console.Console) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withConsole(self, console)

/** A layer that sends every log to `logger` instead of the default one (Effect 3's `Logger.replace`). */
export const replaceLogger = <Output>(logger: Logger.Logger<unknown, Output>): Layer.Layer<never> =>
  Logger.replace(Logger.defaultLogger, logger)

/** A layer that sends every log to `logger` as well as to the loggers already there (Effect 3's `Logger.add`). */
export const addLogger = <Output>(logger: Logger.Logger<unknown, Output>): Layer.Layer<never> => Logger.add(logger)

/** A log level's label, in capitals: `WARN`, `INFO`, … (Effect 3's `LogLevel.label`). */
export const logLevelLabel = (logLevel: LogLevel.LogLevel): string => logLevel.label

/** Runs an effect reading its `Config` from the given variables only (Effect 3's `ConfigProvider.fromMap`). */
export const withConfigFrom =
  (variables: Iterable<readonly [string, string]>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withConfigProvider(self, ConfigProvider.fromMap(new Map(variables)))

/** Whether a log's level is the warning level (Effect 3's `LogLevel.Warning`). */
export const isWarning = (logLevel: LogLevel.LogLevel): boolean => logLevel._tag === "Warning"

/**
 * What a script a test bundles (esbuild, its packages left external) is built with to run on this
 * Effect: the folder whose node_modules hold its packages (the bundle goes under it), and the files
 * of the compat modules (`#compat`, …) it is bundled with. On Effect 3, the repository's.
 */
export const scriptPackages: {
  readonly directory: string
  readonly imports: Readonly<Record<string, string>>
} = {
  directory: fileURLToPath(new URL("../../../", import.meta.url)),
  imports: {
    "#compat": fileURLToPath(new URL("../../../src/face/compat/Effect3.ts", import.meta.url)),
    "#compat-ai": fileURLToPath(new URL("../../../src/apps/effect-ai/compat/Ai3.ts", import.meta.url)),
    "#compat-http": fileURLToPath(new URL("../../../src/apps/http/compat/Http3.ts", import.meta.url))
  }
}

// --- http ---

/** The address of a server listening on `hostname` (an IP address) and `port` (Effect 3's `TcpAddress`). */
export const tcpAddressOf = (hostname: string, port: number): HttpCompat.Address => ({
  _tag: "TcpAddress",
  hostname,
  port
})
