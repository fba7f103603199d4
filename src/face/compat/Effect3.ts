/**
 * The Effect 3 side of the face's compat: every API the face uses whose name or shape differs
 * between Effect 3 and Effect 4, under one name for both. The face's modules import it as
 * `#compat`; the Effect 3 build resolves that here, the Effect 4 build to `Effect4.ts`, which
 * exports the same names (docs/effect4.md, "One source"). Where the two majors differ in design,
 * the names follow Effect 4.
 *
 * @since 0.1.0
 */
import type * as ReactivityModule from "@effect/experimental/Reactivity"
import type * as PlatformError_ from "@effect/platform/Error"
import type * as PlatformFileSystem from "@effect/platform/FileSystem"
import type * as PlatformHttpClient from "@effect/platform/HttpClient"
import type * as PlatformHttpClientError from "@effect/platform/HttpClientError"
import type * as PlatformHttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as PlatformPath from "@effect/platform/Path"
import type * as Migrator from "@effect/sql/Migrator"
import type * as SqlClientModule from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type * as SqlErrorModule from "@effect/sql/SqlError"
import type * as SqlStatementModule from "@effect/sql/Statement"
import * as Cause from "effect/Cause"
import * as EffectConfig from "effect/Config"
import type * as EffectConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Equivalence from "effect/Equivalence"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Queue from "effect/Queue"
import type * as Redacted from "effect/Redacted"
import * as Scheduler from "effect/Scheduler"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as Scope from "effect/Scope"
import type * as SqliteFile from "../layers/sql/SqliteFile.js"

/** The major of Effect this build of the face is compiled against. */
export const major = 3 as const

// --- services ---

/**
 * A service's tag, declared as a class: `class X extends Service<X, Shape>()("id") {}`
 * (Effect 3's `Context.Tag(id)<X, Shape>()`).
 */
export const Service = <Self, Shape>() => <const Id extends string>(id: Id): Context.TagClass<Self, Id, Shape> =>
  Context.Tag(id)<Self, Shape>()

/** The failure of a schema's decoding or encoding (Effect 3's `ParseResult.ParseError`). */
export type SchemaError = ParseResult.ParseError

/** A schema's decoder of its encoded type, as an effect (Effect 3's `Schema.decode`). */
export const decodeEffect: typeof Schema.decode = Schema.decode

/** A schema's encoder of its type, as an effect (Effect 3's `Schema.encode`). */
export const encodeEffect: typeof Schema.encode = Schema.encode

/** A schema of JSON text whose parsed value `schema` decodes (Effect 3's `Schema.parseJson(schema)`). */
export const fromJsonString = <S extends Schema.Schema.Any>(
  schema: S
): Schema.transform<Schema.SchemaClass<unknown, string>, S> => Schema.parseJson(schema)

/**
 * A field that is `value()` when absent or `undefined`, in decoding and in the constructor alike
 * (Effect 3's `Schema.optionalWith(schema, { default: value })`).
 */
export const optionalWithDefault = <S extends Schema.Schema.All>(
  schema: S,
  value: () => Schema.Schema.Type<S>
): Schema.optionalWith<S, { default: () => Schema.Schema.Type<S> }> => Schema.optionalWith(schema, { default: value })

/** A filter of numbers at least zero, to pipe a number schema through (Effect 3's `Schema.nonNegative()`). */
export const nonNegative = <S extends Schema.Schema.Any>(): <A extends number>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.nonNegative<S>()

// --- schema ---

/** A schema of one of some literal values (Effect 3's `Schema.Literal(...literals)`). */
export const Literals = <const L extends readonly [SchemaAST.LiteralValue, ...Array<SchemaAST.LiteralValue>]>(
  literals: L
): Schema.Literal<[...L]> => Schema.Literal(...literals)

/** A schema of one of some members (Effect 3's `Schema.Union(...members)`). */
export const Union = <const M extends readonly [Schema.Schema.All, Schema.Schema.All, ...Array<Schema.Schema.All>]>(
  members: M
): Schema.Union<[...M]> => Schema.Union(...members)

/**
 * A field that may be absent, never `undefined` when present (Effect 3's
 * `Schema.optionalWith(schema, { exact: true })`).
 */
export const optionalKey = <S extends Schema.Schema.All>(schema: S): Schema.optionalWith<S, { exact: true }> =>
  Schema.optionalWith(schema, { exact: true })

// --- root ---

/** A struct of fields whose other keys are read by a record (Effect 3's `Schema.Struct(fields, record)`). */
export const StructWithRest = <Fields extends Schema.Struct.Fields, const R extends Schema.IndexSignature.Record>(
  fields: Fields,
  record: R
): Schema.TypeLiteral<Fields, readonly [R]> => Schema.Struct(fields, record)

const catch_: typeof Effect.catchAll = Effect.catchAll

export {
  /** Recovers from every failure of an effect (Effect 3's `Effect.catchAll`). */
  catch_ as catch
}

// --- rules ---

/**
 * The answer of a computation that succeeds with an `A` or fails with an `E` (Effect 3's
 * `Either<A, E>`, Effect 4's `Result<A, E>`).
 */
export type Result<A, E = never> = Either.Either<A, E>

/** Makes a {@link Result}: `succeed` (Effect 3's `Either.right`), `fail` (`Either.left`). */
export const Result: {
  readonly succeed: <A>(value: A) => Result<A>
  readonly fail: <E>(error: E) => Result<never, E>
} = { succeed: Either.right, fail: Either.left }

/**
 * A schema whose type and encoded type are `A` and `I`, needing no services (Effect 3's
 * `Schema.Schema<A, I>`).
 */
export type Codec<A, I = A> = Schema.Schema<A, I>

/** The equivalence a schema derives for its type (Effect 3's `Schema.equivalence`). */
export const toEquivalence = <A, I, R>(schema: Schema.Schema<A, I, R>): Equivalence.Equivalence<A> =>
  Schema.equivalence(schema)

/** A schema of records from its key and value schemas (Effect 3's `Schema.Record({ key, value })`). */
export const Record = <K extends Schema.Schema.All, V extends Schema.Schema.All>(
  key: K,
  value: V
): Schema.Record$<K, V> => Schema.Record({ key, value })

/**
 * A field that may be absent, never `undefined` when present, and is `value()` when absent, in
 * decoding and in the constructor alike (Effect 3's
 * `Schema.optionalWith(schema, { exact: true, default: value })`).
 */
export const optionalKeyWithDefault = <S extends Schema.Schema.All>(
  schema: S,
  value: () => Schema.Schema.Type<S>
): Schema.optionalWith<S, { exact: true; default: () => Schema.Schema.Type<S> }> =>
  Schema.optionalWith(schema, { exact: true, default: value })

/** A filter of numbers above zero, to pipe a number schema through (Effect 3's `Schema.positive()`). */
export const positive = <S extends Schema.Schema.Any>(): <A extends number>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.positive<S>()

/**
 * A filter of numbers at least `minimum`, to pipe a number schema through (Effect 3's
 * `Schema.greaterThanOrEqualTo(minimum)`).
 */
export const greaterThanOrEqualTo = <S extends Schema.Schema.Any>(minimum: number): <A extends number>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.greaterThanOrEqualTo<S>(minimum)

// --- engine ---

/**
 * The options of a class's constructor that skip its checks, for a value made
 * from fields already known valid (Effect 3's `{ disableValidation: true }`).
 */
export const disableChecks: Schema.MakeOptions = { disableValidation: true }

/** The constructor at the root of a class's chain (for a Schema class on Effect 3, `Data`'s `Structural`). */
const rootConstructor = (Class: Function): Function => {
  let root = Class
  for (let parent = Object.getPrototypeOf(root); parent !== Function.prototype; parent = Object.getPrototypeOf(root)) {
    root = parent
  }
  return root
}

/**
 * An instance of a Schema class from fields already known valid, as its
 * constructor with {@link disableChecks} makes it: the same object (the
 * class's prototype, the fields in their order, then the tag of a tagged
 * class; the same hidden class), made by the root of the class's chain alone
 * (`Structural`, which copies the fields) with the class as `new.target`,
 * without the Schema constructor's two copies and its defaults, which such
 * fields do not need: half the time. Fields holding a `_tag` of their own go
 * through the constructor (it puts the tag last).
 */
export const makeUnchecked = <A extends object, F extends object>(
  Class: (new(fields: F, options: Schema.MakeOptions) => A) & { readonly prototype: A },
  tag: string | undefined
): (fields: F) => A => {
  const root = rootConstructor(Class)
  return (fields) => {
    if (Object.hasOwn(fields, "_tag")) return new Class(fields, disableChecks)
    const instance = Reflect.construct(root, [fields], Class) as A
    if (tag !== undefined) (instance as { _tag?: string })._tag = tag
    return instance
  }
}

/** `Option.some` of a value, `Option.none` for `null` and `undefined` (Effect 3's `Option.fromNullable`). */
export const fromNullishOr: <A>(value: A) => Option.Option<NonNullable<A>> = Option.fromNullable

/**
 * Whether the running fiber's scheduler runs everything at once (`Effect.runSync`), where a
 * macrotask would never come (Effect 3's `FiberRef.currentScheduler` being a `SyncScheduler`).
 */
export const schedulerIsSync: Effect.Effect<boolean> = Effect.map(
  FiberRef.get(FiberRef.currentScheduler),
  (scheduler) => scheduler instanceof Scheduler.SyncScheduler
)

/** Yields the fiber to others (Effect 3's `Effect.yieldNow()`). */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow()

/**
 * An effect resumed by a callback, its registration's effect run if it is interrupted (Effect 3's
 * `Effect.async`).
 */
export const callback: typeof Effect.async = Effect.async

/** An effect's success or failure as a {@link Result}, never failing (Effect 3's `Effect.either`). */
export const result: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Result<A, E>, never, R> = Effect.either

/** A {@link Result} read by its two cases (Effect 3's `Either.match`, its cases renamed). */
export const matchResult = <A, E, B>(
  self: Result<A, E>,
  cases: { readonly onSuccess: (value: A) => B; readonly onFailure: (error: E) => B }
): B => Either.match(self, { onRight: cases.onSuccess, onLeft: cases.onFailure })

/** A semaphore: `withPermits(n)(effect)` runs the effect holding n permits. */
export type Semaphore = Effect.Semaphore

/** A semaphore made outside an effect (Effect 3's `Effect.unsafeMakeSemaphore`). */
export const makeSemaphoreUnsafe: (permits: number) => Semaphore = Effect.unsafeMakeSemaphore

/** A deferred made outside an effect (Effect 3's `Deferred.unsafeMake` with no fiber id). */
export const makeDeferredUnsafe = <A, E = never>(): Deferred.Deferred<A, E> => Deferred.unsafeMake<A, E>(FiberId.none)

/**
 * Recovers from every cause of failure, interruptions and defects included (Effect 3's
 * `Effect.catchAllCause`).
 */
export const catchCause: typeof Effect.catchAllCause = Effect.catchAllCause

/** Recovers from every failure of the error channel (Effect 3's `Effect.catchAll`). */
export const catchFailure: typeof Effect.catchAll = Effect.catchAll

/** Recovers from a defect (Effect 3's `Effect.catchAllDefect`). */
export const catchDefect: typeof Effect.catchAllDefect = Effect.catchAllDefect

/** Whether a cause holds interruptions only (Effect 3's `Cause.isInterruptedOnly`). */
export const hasInterruptsOnly: <E>(self: Cause.Cause<E>) => boolean = Cause.isInterruptedOnly

/** A tuple schema of its elements (Effect 3's `Schema.Tuple(...elements)`). */
export const Tuple = <const Elements extends Schema.TupleType.Elements>(elements: Elements): Schema.Tuple<Elements> =>
  Schema.Tuple(...elements)

/** A tuple's element that may be absent (Effect 3's `Schema.optionalElement`). */
export const optionalElement: <S extends Schema.Schema.Any>(self: S) => Schema.Element<S, "?"> = Schema.optionalElement

/**
 * Decodes an unknown value, answering a {@link Result} whose failure has a message (Effect 3's
 * `Schema.decodeUnknownEither`).
 */
export const decodeUnknownResult = <A, I>(
  schema: Schema.Schema<A, I, never>
): (input: unknown) => Result<A, { readonly message: string }> => Schema.decodeUnknownEither(schema)

/**
 * What a duration may be given as: a `Duration`, a number of milliseconds or a text such as
 * `"30 seconds"` (Effect 3's `Duration.DurationInput`).
 */
export type DurationInput = Duration.DurationInput

/** A duration from what it was given as (Effect 3's `Duration.decode`, throwing on a text it cannot read). */
export const durationFromInput: (input: DurationInput) => Duration.Duration = Duration.decode

/**
 * A subscription to a hub: the queue its subscriber takes published values from (Effect 3's
 * `Queue.Dequeue`, what `PubSub.subscribe` gives).
 */
export type Subscription<A> = Queue.Dequeue<A>

// --- layers ---

// --- layers: memory ---

/**
 * A value each fiber holds for itself and the fibers it forks, its initial value where none was
 * set (Effect 3's `FiberRef.FiberRef`).
 */
export type FiberLocal<A> = FiberRef.FiberRef<A>

/**
 * A {@link FiberLocal} made outside an effect, `initial()` where none was set; `key` names it on
 * Effect 4 (Effect 3's `FiberRef.unsafeMake(initial())`).
 */
export const makeFiberLocalUnsafe = <A>(_key: string, initial: () => A): FiberLocal<A> => FiberRef.unsafeMake(initial())

/** The current fiber's value of a {@link FiberLocal} (Effect 3's `FiberRef.get`). */
export const getFiberLocal: <A>(self: FiberLocal<A>) => Effect.Effect<A> = FiberRef.get

/** Runs an effect with a {@link FiberLocal} set to `value` (Effect 3's `Effect.locally`). */
export const locally = <B, E, R, A>(effect: Effect.Effect<B, E, R>, self: FiberLocal<A>, value: A): Effect.Effect<
  B,
  E,
  R
> => Effect.locally(effect, self, value)

/** A layer whose services are `f` of those `self` builds (Effect 3's `Layer.map`). */
export const mapLayerContext = <A, E, R, B>(
  self: Layer.Layer<A, E, R>,
  f: (context: Context.Context<A>) => Context.Context<B>
): Layer.Layer<B, E, R> => Layer.map(self, f)

// --- layers: io ---

// The platform's services are named here by their tags' keys (`@effect/platform` makes each with
// `Context.GenericTag(key)`, so a tag of the same key is the same service) and its request helpers
// imported when a client is made: every entry imports this module, and none of them needs
// `@effect/platform` loaded, or installed, for it.

/** The file system service (Effect 3's `FileSystem.FileSystem` of `@effect/platform`). */
export type FileSystem = PlatformFileSystem.FileSystem

/** The tag of the file system service (Effect 3's `FileSystem.FileSystem` of `@effect/platform`). */
export const FileSystem: Context.Tag<FileSystem, FileSystem> = Context.GenericTag<FileSystem>(
  "@effect/platform/FileSystem"
)

/** What the file system tells of a file (Effect 3's `FileSystem.File.Info`). */
export type FileInfo = PlatformFileSystem.File.Info

/** The path service (Effect 3's `Path.Path` of `@effect/platform`). */
export type Path = PlatformPath.Path

/** The tag of the path service (Effect 3's `Path.Path` of `@effect/platform`). */
export const Path: Context.Tag<Path, Path> = Context.GenericTag<Path>("@effect/platform/Path")

/** A failure of the file system (Effect 3's `PlatformError` of `@effect/platform`). */
export type PlatformError = PlatformError_.PlatformError

/** Whether a failure of the file system is a missing file (Effect 3's `SystemError` of reason `NotFound`). */
export const isNotFound = (error: PlatformError): boolean => error._tag === "SystemError" && error.reason === "NotFound"

/** The HTTP client service (Effect 3's `HttpClient.HttpClient` of `@effect/platform`). */
export type HttpClient = PlatformHttpClient.HttpClient

/** The tag of the HTTP client service (Effect 3's `HttpClient.HttpClient` of `@effect/platform`). */
export const HttpClient: Context.Tag<HttpClient, HttpClient> = Context.GenericTag<HttpClient>(
  "@effect/platform/HttpClient"
)

/** A failure of an HTTP client (Effect 3's `HttpClientError.HttpClientError` of `@effect/platform`). */
export type HttpClientError = PlatformHttpClientError.HttpClientError

/**
 * What went wrong in an HTTP client's failure: its kind (Effect 3's `reason`), its cause and its
 * description.
 */
export const httpErrorReason = (error: HttpClientError): {
  readonly kind: string
  readonly cause: unknown
  readonly description: string | undefined
} => ({ kind: error.reason, cause: error.cause, description: error.description })

/** A request of an HTTP client (Effect 3's `HttpClientRequest.HttpClientRequest` of `@effect/platform`). */
export type HttpClientRequest = PlatformHttpClientRequest.HttpClientRequest

/** The makers of a request that {@link loadHttpRequests} gives. */
export interface HttpRequests {
  /** A `POST` to `url` (Effect 3's `HttpClientRequest.post`). */
  readonly post: (url: string) => HttpClientRequest
  /** Asks for JSON (Effect 3's `HttpClientRequest.acceptJson`). */
  readonly acceptJson: (self: HttpClientRequest) => HttpClientRequest
  /** Sends `Authorization: Bearer …` (Effect 3's `HttpClientRequest.bearerToken`). */
  readonly bearerToken: (token: string | Redacted.Redacted) => (self: HttpClientRequest) => HttpClientRequest
  /** A body of JSON, the value not checked (Effect 3's `HttpClientRequest.bodyUnsafeJson`). */
  readonly bodyJsonUnsafe: (self: HttpClientRequest, body: unknown) => HttpClientRequest
}

/** The makers of a request, from `@effect/platform`'s `HttpClientRequest`, imported when first asked for. */
export const loadHttpRequests: Effect.Effect<HttpRequests> = Effect.map(
  Effect.promise(() => import("@effect/platform/HttpClientRequest")),
  (module): HttpRequests => ({
    post: (url) => module.post(url),
    acceptJson: module.acceptJson,
    bearerToken: (token) => module.bearerToken(token),
    bodyJsonUnsafe: (self, body) => module.bodyUnsafeJson(self, body)
  })
)

/** A failure to read a configuration (Effect 3's `ConfigError.ConfigError`). */
export type ConfigError = EffectConfigError.ConfigError

/** A configuration of a text (Effect 3's `Config.string`). */
export const configString = (name: string): EffectConfig.Config<string> => EffectConfig.string(name)

/** A configuration of a duration, such as `90 seconds` (Effect 3's `Config.duration`). */
export const configDuration = (name: string): EffectConfig.Config<Duration.Duration> => EffectConfig.duration(name)

/** A configuration of a secret text (Effect 3's `Config.redacted`). */
export const configRedacted = (name: string): EffectConfig.Config<Redacted.Redacted<string>> =>
  EffectConfig.redacted(name)

/**
 * An effect that gives up after `duration`, then runs `orElse` instead (Effect 3's `Effect.timeoutTo`,
 * its timeout an effect).
 */
export const timeoutOrElse = <A2, E2, R2>(options: {
  readonly duration: DurationInput
  readonly orElse: () => Effect.Effect<A2, E2, R2>
}) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A | A2, E | E2, R | R2> =>
  Effect.flatten(
    Effect.timeoutTo(self, {
      duration: options.duration,
      onTimeout: options.orElse,
      onSuccess: (value): Effect.Effect<A | A2, E2, R2> => Effect.succeed(value)
    })
  )

/**
 * Decodes an unknown value, answering a {@link Result} whose failure is the schema's error
 * (Effect 3's `Schema.decodeUnknownEither`).
 */
export const decodeUnknownSchemaResult = <A, I>(
  schema: Schema.Schema<A, I, never>
): (input: unknown) => Result<A, SchemaError> => Schema.decodeUnknownEither(schema)

/**
 * Where a decoding's first problem is, and whether it is a missing key (Effect 3's first issue of
 * `ParseResult.ArrayFormatter`); `undefined` when it names none.
 */
export const firstIssue = (
  error: SchemaError
): { readonly path: ReadonlyArray<PropertyKey>; readonly missing: boolean } | undefined => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
  return first === undefined ? undefined : { path: first.path, missing: first._tag === "Missing" }
}

/** Decodes an unknown value as an effect (Effect 3's `Schema.decodeUnknown`). */
export const decodeUnknownEffect: typeof Schema.decodeUnknown = Schema.decodeUnknown

// --- layers: sql ---

// `@effect/sql`'s client is named here by its tag's key (`@effect/sql` makes it with
// `Context.GenericTag(key)`, so a tag of the same key is the same service), and its migrator, the
// `Reactivity` module and the SQLite opener are imported when first used: every entry imports this
// module, and none of them needs `@effect/sql` loaded, or installed, for it.

/** The client of a SQL database (Effect 3's `SqlClient` of `@effect/sql`). */
export type SqlClient = SqlClientModule.SqlClient

/** The tag of the client of a SQL database (Effect 3's `SqlClient.SqlClient` of `@effect/sql`). */
export const SqlClient: Context.Tag<SqlClient, SqlClient> = Context.GenericTag<SqlClient>("@effect/sql/SqlClient")

/** The failure of a SQL statement (Effect 3's `SqlError` of `@effect/sql`). */
export type SqlError = SqlErrorModule.SqlError

/** A SQL statement of a client, its rows typed `A` (Effect 3's `Statement` of `@effect/sql`). */
export type SqlStatement<A> = SqlStatementModule.Statement<A>

/** A row of a SQL answer (Effect 3's `SqlConnection.Row` of `@effect/sql`). */
export type SqlRow = SqlConnection.Row

/** The failure of a migration (Effect 3's `Migrator.MigrationError` of `@effect/sql`). */
export type MigrationError = Migrator.MigrationError

/**
 * Brings the database behind the current `SqlClient` up to the migrations of a record keyed
 * `<id>_<name>`, keeping which ran in `table`; answers those it ran (Effect 3's
 * `Migrator.make({})({ loader: Migrator.fromRecord(migrations), table })` of `@effect/sql`, its
 * module imported when first run).
 */
export const runMigrations = (options: {
  readonly migrations: Record<string, Effect.Effect<void, unknown, SqlClient>>
  readonly table: string
}): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, MigrationError | SqlError, SqlClient> =>
  Effect.flatMap(
    Effect.promise(() => import("@effect/sql/Migrator")),
    (Migrator) => Migrator.make({})({ loader: Migrator.fromRecord(options.migrations), table: options.table })
  )

/**
 * The module of the service that tells the clients of a SQL database which keys a write
 * invalidated, imported (Effect 3's `@effect/experimental/Reactivity`).
 */
export const importReactivity = (): Promise<typeof ReactivityModule> => import("@effect/experimental/Reactivity")

/**
 * A SQLite database that could not be opened and brought up to the schema (Effect 3's
 * `src/face/layers/sql/SqliteFile`'s `OpenError`).
 */
export type SqliteOpenError = SqliteFile.OpenError

/** The SQLite layer's module (better-sqlite3's, `SqliteFile`), imported when a file is first opened. */
const sqliteModule = Effect.promise(() => import("../layers/sql/SqliteFile.js"))

/** How a SQLite file is opened: its path, and how long an operation waits for another connection's lock. */
export interface SqliteOptions {
  readonly filename: string
  readonly busyTimeoutMs?: number | undefined
}

/**
 * Opens a SQLite file for the production layers, migrated, as a `SqlClient` closed with the scope
 * (Effect 3's `src/face/layers/sql/SqliteFile`'s `openSqlite`, over better-sqlite3; that module is imported
 * when a file is first opened).
 */
export const openSqlite = (options: SqliteOptions): Effect.Effect<SqlClient, SqliteOpenError, Scope.Scope> =>
  Effect.flatMap(sqliteModule, (module) => module.openSqlite(options))

/**
 * Opens a SQLite file for a reader (`compact`'s settings, `settings get`): as {@link openSqlite}, but
 * a file that may not be written is read from a private copy, and a missing one that cannot be made
 * is an empty database in memory (`src/face/layers/sql/SqliteReading`).
 */
export const openSqliteReading = (options: SqliteOptions): Effect.Effect<SqlClient, SqliteOpenError, Scope.Scope> =>
  Effect.flatMap(sqliteModule, (module) => module.openSqliteReading(options))

/**
 * Why SQLite cannot be used in this installation, as one line naming what to run, or `undefined`
 * when it can (Effect 3's `src/face/layers/sql/SqliteFile`'s `unavailable()`: better-sqlite3 loaded and an
 * in-memory database opened and closed).
 */
export const sqliteUnavailable: Effect.Effect<string | undefined> = Effect.flatMap(
  sqliteModule,
  (module) => module.unavailable()
)

/**
 * A layer whose failure is mapped by `f`, its defects and interruption kept (Effect 3's
 * `Layer.mapError`; Effect 4 has none).
 */
export const layerMapError =
  <E, E2>(f: (error: E) => E2) => <A, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E2, R> => Layer.mapError(self, f)

/**
 * A layer of one service made by a scoped effect, its resources released with the layer (Effect 3's
 * `Layer.scoped`).
 */
export const layerScoped: typeof Layer.scoped = Layer.scoped

/**
 * A layer of the services of a context made by a scoped effect, its resources released with the
 * layer (Effect 3's `Layer.scopedContext`).
 */
export const layerScopedContext: typeof Layer.scopedContext = Layer.scopedContext

/**
 * A scope of its own inside `scope`, its finalizers run one after another when it is closed
 * (Effect 3's `Scope.fork(scope, ExecutionStrategy.sequential)`).
 */
export const forkScope = (scope: Scope.Scope): Effect.Effect<Scope.CloseableScope> =>
  Scope.fork(scope, ExecutionStrategy.sequential)

/** An effect run in a scope that outlives it (Effect 3's `Scope.extend`). */
export const provideScope: typeof Scope.extend = Scope.extend

// --- adapters ---

/**
 * A {@link Result} as an effect that succeeds with its value or fails with its error (on Effect 3
 * an `Either` already is one: the same value, typed as an effect).
 */
export const fromResult = <A, E>(result: Result<A, E>): Effect.Effect<A, E> => result

/** Whether a value is a {@link Result} (Effect 3's `Either.isEither`). */
export const isResult: (input: unknown) => input is Result<unknown, unknown> = Either.isEither

/**
 * A decoding's problems, each where it is and what it is (Effect 3's `ParseResult.ArrayFormatter`):
 * the @effect/ai `Prompt` adapter names the first when an encoded message is not one.
 */
export const formatIssues = (
  error: SchemaError
): ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> =>
  ParseResult.ArrayFormatter.formatErrorSync(error)

/**
 * Node's file system and paths (`@effect/platform-node`'s `NodeContext`), imported when the layer
 * is built, so that a program that never builds it never loads the platform.
 */
export const nodeFileSystem: Layer.Layer<FileSystem | Path> = Layer.unwrapEffect(
  Effect.map(Effect.promise(() => import("@effect/platform-node/NodeContext")), (module) => module.layer)
)

/** Node's `HttpClient` (`@effect/platform-node`'s, over undici), imported when the layer is built. */
export const nodeHttpClient: Layer.Layer<HttpClient> = Layer.unwrapEffect(
  Effect.map(Effect.promise(() => import("@effect/platform-node/NodeHttpClient")), (module) => module.layer)
)

/** The layer an effect makes (Effect 3's `Layer.unwrapEffect`). */
export const unwrapLayer: typeof Layer.unwrapEffect = Layer.unwrapEffect
