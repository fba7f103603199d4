/**
 * The Effect 4 side of the tests' compat (`#test-compat`): the same names as `Effect3.ts`, each
 * Effect 4's API. test-effect4's vitest plugin and tsconfig.json resolve `#test-compat` here.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { it as effectIt } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as NetAddress from "effect/net/NetAddress"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as fc from "fast-check"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import type * as CompatAi from "../../../src/apps/effect-ai/compat/Ai4.js"
import type * as HttpCompat from "../../../src/apps/http/compat/Http4.js"
import type * as Steps from "../../../src/core/Steps.js"
import * as SqliteNode from "../../../src/effect4/layers/sql/SqliteNode.js"
import type * as Compat from "../../../src/face/compat/Effect4.js"
import * as Cooperative from "../../../src/face/engine/internal/Cooperative.js"

/** The major of Effect the tests run on (typed as either, so a test may ask which). */
export const major: 3 | 4 = 4

/** The largest size a Schema's value is drawn at (Effect 4's Arbitrary grows its values with it). */
const maxSize = 40

/**
 * A fast-check arbitrary of a Schema's values. Effect 4 draws them with an engine of its own, not
 * fast-check: fast-check draws a seed and a size, Effect 4's `Arbitrary.schema` the value from them
 * (the same value for the same pair); fast-check shrinks towards size 0, which draws smaller values.
 */
export const arbitrary = <S extends Schema.Top>(schema: S): fc.Arbitrary<S["Type"]> => {
  const drawn = Arbitrary.schema(schema)
  return fc.tuple(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: maxSize })).map(([seed, size]) =>
    Effect.runSync(Arbitrary.sampleEffect(drawn, { count: 1, seed, size }))[0]!
  )
}

/** Whether a compat `Result` succeeded. */
export const isSuccess: <A, E>(result: Compat.Result<A, E>) => boolean = Result.isSuccess

/** Whether a compat `Result` failed. */
export const isFailure: <A, E>(result: Compat.Result<A, E>) => boolean = Result.isFailure

/** A compat `Result`'s value, or a throw. */
export const getOrThrow: <A, E>(result: Compat.Result<A, E>) => A = Result.getOrThrow

/** A compat `Result`'s value, or `orElse()`. */
export const getOrElse = <A, E, B>(result: Compat.Result<A, E>, orElse: () => B): A | B =>
  Result.getOrElse(result, orElse)

/** A compat `Result`'s error, if it failed. */
export const getFailure: <A, E>(result: Compat.Result<A, E>) => Option.Option<E> = Result.getFailure

/** A service's tag, the class a service is declared as: its `of` and the service it gives (Effect 4's `Context.Service`). */
export type ServiceTag = Context.Service<unknown, object>

/** Whether a value is a service's tag (`Context.isKey`). */
export const isServiceTag = (input: unknown): input is ServiceTag => Context.isKey(input)

/** Whether a cause is one defect and nothing else. */
export const isDieOnly = <E>(cause: Cause.Cause<E>): boolean =>
  cause.reasons.length === 1 && Cause.isDieReason(cause.reasons[0]!)

/** The core's steps run by `Cooperative.run`, giving the event loop a turn at every step. */
export const runPausing = <A>(steps: Steps.Steps<A>): Effect.Effect<A> => Cooperative.run(steps, Cooperative.slice(0))

/** Runs an effect in a fiber of its own, a child of the running one. */
export const forkChild = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<Fiber.Fiber<A, E>, never, R> =>
  Effect.forkChild(self)

/** A fiber's exit if it has ended, without waiting for it (the fiber's `pollUnsafe`). */
export const poll = <A, E>(fiber: Fiber.Fiber<A, E>): Effect.Effect<Option.Option<Exit.Exit<A, E>>> =>
  Effect.sync(() => Option.fromUndefinedOr(fiber.pollUnsafe()))

/**
 * Waits until every fiber is suspended: not on Effect 4, whose fibers have no status (no
 * `Fiber.status`; each runs on a dispatcher of its own), so a fiber waiting on a `Deferred` cannot be
 * told from one about to run. Dies; a test that needs it is skipped on Effect 4 with that reason.
 */
export const allSuspended = (_fibers: ReadonlyArray<Fiber.Fiber<unknown, unknown>>): Effect.Effect<void> =>
  Effect.die(new Error("Effect 4's fibers have no status: allSuspended cannot be awaited"))

/** Moves the test clock on by `duration`, running what was due by then. */
export const adjustClock = (duration: Compat.DurationInput): Effect.Effect<void> => TestClock.adjust(duration)

/**
 * Runs an effect on a test clock of its own, as `it.effect` runs its tests: for the effect of a
 * property (`effectProp` of test/support/Property.ts runs it on the live clock). Effect 4's `TestClock.layer`.
 */
export const withTestClock = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provide(self, TestClock.layer())

/** The next value of a subscription, waiting for one (`PubSub.take`). */
export const take = <A>(subscription: Compat.Subscription<A>): Effect.Effect<A> => PubSub.take(subscription)

// --- effect-ai ---

/** What kind of failure an `AiError` is, and its description: its reason's (`InvalidUserInputError`, …). */
export const aiErrorOf = (
  error: CompatAi.AiError
): { readonly kind: string; readonly description: string | undefined } => ({
  kind: error.reason._tag,
  description: "description" in error.reason ? error.reason.description : undefined
})

/** The kind {@link aiErrorOf} names of a call the model cannot take as it is (`invalidUserInputError`). */
export const invalidUserInputKind = "InvalidUserInputError"

/** A tool called through a toolkit's handlers: its last result (Effect 4's `handle` answers a stream of them). */
export const handleTool = (
  toolkit: { readonly handle: (name: never, params: never) => Effect.Effect<unknown, unknown, unknown> },
  name: string,
  params: unknown
): Effect.Effect<{ readonly isFailure: boolean; readonly result: unknown }, unknown> =>
  Effect.flatMap(
    toolkit.handle(name as never, params as never) as Effect.Effect<
      Stream.Stream<{ readonly isFailure: boolean; readonly result: unknown }, unknown>,
      unknown
    >,
    (results) =>
      Effect.flatMap(
        Stream.runLast(results),
        Option.match({
          onNone: () => Effect.die(new Error(`the tool ${name} gave no result`)),
          onSome: Effect.succeed
        })
      )
  )

// --- layers: sql ---

/** A client of a SQLite file (or `:memory:`) for as long as the layer (`node:sqlite`, through the face's `SqliteNode`). */
export const sqliteClient = (filename: string): Layer.Layer<Compat.SqlClient> =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const { DatabaseSync } = yield* Effect.promise(() => import("node:sqlite"))
      // better-sqlite3's defaults, as the Effect 3 client has them: a busy timeout of 5 s, write-ahead logging.
      const database = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const database = new DatabaseSync(filename, { timeout: 5_000 })
          if (filename !== ":memory:") database.exec("PRAGMA journal_mode = WAL")
          return database
        }),
        (database) => Effect.sync(() => database.isOpen && database.close())
      )
      return yield* SqliteNode.makeClient(database)
    })
  )

/** A second connection to a SQLite file, to hold a lock on it beside a client (`exec` chains; `close` closes once). */
export interface SqliteConnection {
  readonly exec: (sql: string) => SqliteConnection
  readonly close: () => void
}

/** A connection to the SQLite file `filename` of the driver the SQLite layers use (`node:sqlite` on Effect 4). */
export const sqliteConnection = (filename: string): SqliteConnection => {
  const { DatabaseSync } = createRequire(import.meta.url)("node:sqlite") as typeof import("node:sqlite")
  const database = new DatabaseSync(filename)
  const connection: SqliteConnection = {
    exec: (sql) => {
      database.exec(sql)
      return connection
    },
    close: () => {
      if (database.isOpen) database.close()
    }
  }
  return connection
}

/**
 * The code a failure of the SQLite driver carries, which the layers' warnings name before its message,
 * for the failure SQLite names `sqliteCode`. On Effect 4, `node:sqlite` gives every one Node's code `ERR_SQLITE_ERROR` (SQLite's own only as the number `errcode`, its text as `errstr`).
 */
export const sqliteErrorCode = (_sqliteCode: string): string => "ERR_SQLITE_ERROR"

/** A client of the PostgreSQL database of `url` for as long as the layer (`@effect/sql-pg` 4.x). */
export const pgClient = (url: string): Layer.Layer<Compat.SqlClient> =>
  Layer.orDie(PgClient.layer({ url: Redacted.make(url) })) as Layer.Layer<Compat.SqlClient>

/** Runs one statement on the PostgreSQL database of `url`, on a connection of its own. */
export const onPgServer = (url: string, statement: string): Effect.Effect<void, Compat.SqlError> =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(url) }), (sql) => sql.unsafe(statement))).pipe(
    Effect.asVoid,
    Effect.provide(Reactivity.layer)
  )

/** The layer a scoped effect makes, its scope the layer's (Effect 4's `Layer.unwrap`). */
export const unwrapLayerScoped: typeof Layer.unwrap = Layer.unwrap

/**
 * A failure of a SQL statement as the SQLite client makes it: the driver's error classified, under
 * `message` (`effect/sql`'s `SqlError`, the driver's error the cause of its reason).
 */
export const sqlError = (message: string, cause: unknown): Compat.SqlError =>
  new SqlError.SqlError({ reason: SqlError.classifySqliteError(cause, { message, operation: "execute" }) })

/**
 * @effect/vitest 4's `it` with Effect 3's `it.scopedLive`, a test of a scoped effect on the live clock,
 * and `it.scoped`, one on the test clock: there its `it.live` and `it.effect`, whose tests are scoped.
 */
const itWithScopedLive: typeof effectIt & {
  readonly scopedLive: typeof effectIt.live
  readonly scoped: typeof effectIt.effect
} = new Proxy(effectIt, {
  get: (target, property, receiver) =>
    property === "scopedLive"
      ? target.live
      : property === "scoped"
      ? target.effect
      : Reflect.get(target, property, receiver)
}) as typeof effectIt & { readonly scopedLive: typeof effectIt.live; readonly scoped: typeof effectIt.effect }

export {
  /**
   * @effect/vitest 4's `it` with Effect 3's `it.scopedLive`, a test of a scoped effect on the live
   * clock, and `it.scoped`, one on the test clock: there its `it.live` and `it.effect`, whose tests are scoped.
   */
  itWithScopedLive as it
}

/** `console` with `log` and `error` recorded in `out` and `err` (Effect 4's console methods are plain calls). */
export const recordingConsole = (
  console: Console.Console,
  out: Array<string>,
  err: Array<string>
): Console.Console => ({
  ...console,
  log: (...parts) => void out.push(parts.join(" ")),
  error: (...parts) => void err.push(parts.join(" "))
})

/** Runs an effect with another console (Effect 4's `Console.Console` reference). */
export const withConsole =
  (console: Console.Console) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(self, Console.Console, console)

/** A layer that sends every log to `logger` instead of the default one (Effect 4's `Logger.layer`). */
export const replaceLogger = <Output>(logger: Logger.Logger<unknown, Output>): Layer.Layer<never> =>
  Logger.layer([logger])

/** A layer that sends every log to `logger` as well as to the loggers already there (Effect 4's `Logger.layer`, merged). */
export const addLogger = <Output>(logger: Logger.Logger<unknown, Output>): Layer.Layer<never> =>
  Logger.layer([logger], { mergeWithExisting: true })

/** A log level's label, in capitals: `WARN`, `INFO`, … (Effect 4's level names, `"Warn"`, in capitals). */
export const logLevelLabel = (logLevel: LogLevel.LogLevel): string => logLevel.toUpperCase()

/** Runs an effect reading its `Config` from the given variables only (Effect 4's `ConfigProvider.fromEnvRecord`). */
export const withConfigFrom =
  (variables: Iterable<readonly [string, string]>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provide(self, ConfigProvider.layer(ConfigProvider.fromEnvRecord(Object.fromEntries(variables))))

/** Whether a log's level is the warning level (Effect 4's `"Warn"`). */
export const isWarning = (logLevel: LogLevel.LogLevel): boolean => logLevel === "Warn"

/**
 * What a script a test bundles (esbuild, its packages left external) is built with to run on this
 * Effect: the folder whose node_modules hold its packages (the bundle goes under it), and the files
 * of the compat modules (`#compat`, …) it is bundled with. On Effect 4, test-effect4's and the Effect 4 ones.
 */
export const scriptPackages: {
  readonly directory: string
  readonly imports: Readonly<Record<string, string>>
} = {
  directory: fileURLToPath(new URL("../../../test-effect4/", import.meta.url)),
  imports: {
    "#compat": fileURLToPath(new URL("../../../src/face/compat/Effect4.ts", import.meta.url)),
    "#compat-ai": fileURLToPath(new URL("../../../src/apps/effect-ai/compat/Ai4.ts", import.meta.url)),
    "#compat-http": fileURLToPath(new URL("../../../src/apps/http/compat/Http4.ts", import.meta.url))
  }
}

// --- http ---

/** The address of a server listening on `hostname` (an IP address) and `port` (Effect 4's `NetAddress.InetAddress`). */
export const tcpAddressOf = (hostname: string, port: number): HttpCompat.Address =>
  NetAddress.inetAddressFromIpStringUnsafe(hostname, port)
