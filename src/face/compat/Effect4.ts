/**
 * The Effect 4 side of the face's compat: the same names as `Effect3.ts`, each Effect 4's API.
 * The Effect 4 build resolves the face's `#compat` here (docs/effect4.md, "One source").
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as EffectConfig from "effect/Config"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Equivalence from "effect/Equivalence"
import type * as EffectFileSystem from "effect/FileSystem"
import type * as EffectHttpClient from "effect/http/HttpClient"
import type * as EffectHttpClientError from "effect/http/HttpClientError"
import type * as EffectHttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as EffectPath from "effect/Path"
import type * as EffectPlatformError from "effect/PlatformError"
import type * as PubSub from "effect/PubSub"
import type * as ReactivityModule from "effect/reactivity/Reactivity"
import type * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as EffectResult from "effect/Result"
import * as Scheduler from "effect/Scheduler"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Scope from "effect/Scope"
import * as EffectSemaphore from "effect/Semaphore"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClientModule from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import type * as SqlErrorModule from "effect/sql/SqlError"
import type * as SqlStatementModule from "effect/sql/Statement"

/** The major of Effect this build of the face is compiled against. */
export const major = 4 as const

// --- services ---

/** A service's tag, declared as a class: `class X extends Service<X, Shape>()("id") {}`. */
export const Service = <Self, Shape>() => <const Id extends string>(id: Id): Context.ServiceClass<Self, Id, Shape> =>
  Context.Service<Self, Shape>()(id)

/** The failure of a schema's decoding or encoding. */
export type SchemaError = Schema.SchemaError

/** A schema's decoder of its encoded type, as an effect. */
export const decodeEffect: typeof Schema.decodeEffect = Schema.decodeEffect

/** A schema's encoder of its type, as an effect. */
export const encodeEffect: typeof Schema.encodeEffect = Schema.encodeEffect

/** A schema of JSON text whose parsed value `schema` decodes. */
export const fromJsonString = <S extends Schema.Top>(schema: S): Schema.fromJsonString<S> =>
  Schema.fromJsonString(schema)

/** A field that is `value()` when absent or `undefined`, in decoding and in the constructor alike. */
export const optionalWithDefault = <S extends Schema.Top & Schema.WithoutConstructorDefault>(
  schema: S,
  value: () => S["Encoded"] & S["~type.make.in"]
) =>
  schema.pipe(
    Schema.withDecodingDefault(Effect.sync(value)),
    Schema.withConstructorDefault(Effect.sync(value))
  )

/** A filter of numbers at least zero, to pipe a number schema through. */
export const nonNegative = () => <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
  Schema.check<S>(Schema.isGreaterThanOrEqualTo(0))(self)

// --- schema ---

/** A schema of one of some literal values. */
export const Literals = <const L extends readonly [SchemaAST.LiteralValue, ...Array<SchemaAST.LiteralValue>]>(
  literals: L
): Schema.Literals<L> => Schema.Literals(literals)

/** A schema of one of some members. */
export const Union = <const M extends readonly [Schema.Top, Schema.Top, ...Array<Schema.Top>]>(
  members: M
): Schema.Union<M> => Schema.Union(members)

/** A field that may be absent, never `undefined` when present. */
export const optionalKey = <S extends Schema.Top>(schema: S): Schema.optionalKey<S> => Schema.optionalKey(schema)

// --- root ---

/** A struct of fields whose other keys are read by a record. */
export const StructWithRest = <
  const Fields extends Schema.Struct.Fields,
  const R extends Schema.$Record<Schema.Record.Key, Schema.Top>
>(
  fields: Fields,
  record: R
): Schema.StructWithRest<Schema.Struct<Fields>, readonly [R]> => Schema.StructWithRest(Schema.Struct(fields), [record])

const catch_: typeof Effect.catch = Effect.catch

export {
  /** Recovers from every failure of an effect. */
  catch_ as catch
}

// --- rules ---

/** The answer of a computation that succeeds with an `A` or fails with an `E`. */
export type Result<A, E = never> = EffectResult.Result<A, E>

/** Makes a {@link Result}: `succeed`, `fail`. */
export const Result: {
  readonly succeed: <A>(value: A) => Result<A>
  readonly fail: <E>(error: E) => Result<never, E>
} = { succeed: EffectResult.succeed, fail: EffectResult.fail }

/** A schema whose type and encoded type are `A` and `I`, needing no services. */
export type Codec<A, I = A> = Schema.Codec<A, I>

/** The equivalence a schema derives for its type. */
export const toEquivalence = <A>(schema: Schema.Schema<A>): Equivalence.Equivalence<A> => Schema.toEquivalence(schema)

/** A schema of records from its key and value schemas. */
export const Record: typeof Schema.Record = Schema.Record

/**
 * A field that may be absent, never `undefined` when present, and is `value()` when absent, in
 * decoding and in the constructor alike.
 */
export const optionalKeyWithDefault = <S extends Schema.Top & Schema.WithoutConstructorDefault>(
  schema: S,
  value: () => S["Encoded"] & S["~type.make.in"]
) =>
  schema.pipe(
    Schema.withDecodingDefaultKey(Effect.sync(value)),
    Schema.withConstructorDefault(Effect.sync(value))
  )

/** A filter of numbers above zero, to pipe a number schema through. */
export const positive = () => <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
  Schema.check<S>(Schema.isGreaterThan(0))(self)

/** A filter of numbers at least `minimum`, to pipe a number schema through. */
export const greaterThanOrEqualTo =
  (minimum: number) => <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
    Schema.check<S>(Schema.isGreaterThanOrEqualTo(minimum))(self)

// --- engine ---

/**
 * The options of a class's constructor that skip its checks, for a value made
 * from fields already known valid.
 */
export const disableChecks: Schema.MakeOptions = { disableChecks: true }

/**
 * An instance of a Schema class from fields already known valid: its
 * constructor with {@link disableChecks}.
 */
export const makeUnchecked = <A extends object, F extends object>(
  Class: (new(fields: F, options: Schema.MakeOptions) => A) & { readonly prototype: A },
  _tag: string | undefined
): (fields: F) => A =>
(fields) => new Class(fields, disableChecks)

/** `Option.some` of a value, `Option.none` for `null` and `undefined`. */
export const fromNullishOr: <A>(value: A) => Option.Option<NonNullable<A>> = Option.fromNullishOr

/**
 * Whether the running fiber's scheduler runs everything at once (`Effect.runSync`), where a
 * macrotask would never come.
 */
export const schedulerIsSync: Effect.Effect<boolean> = Effect.gen(function*() {
  const scheduler = yield* References.Scheduler
  return scheduler instanceof Scheduler.MixedScheduler && scheduler.executionMode === "sync"
})

/** Yields the fiber to others. */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow

/** An effect resumed by a callback, its registration's effect run if it is interrupted. */
export const callback: typeof Effect.callback = Effect.callback

/** An effect's success or failure as a {@link Result}, never failing. */
export const result: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Result<A, E>, never, R> = Effect.result

/** A {@link Result} read by its two cases. */
export const matchResult = <A, E, B>(
  self: Result<A, E>,
  cases: { readonly onSuccess: (value: A) => B; readonly onFailure: (error: E) => B }
): B => EffectResult.match(self, cases)

/** A semaphore: `withPermits(n)(effect)` runs the effect holding n permits. */
export type Semaphore = EffectSemaphore.Semaphore

/** A semaphore made outside an effect. */
export const makeSemaphoreUnsafe: (permits: number) => Semaphore = EffectSemaphore.makeUnsafe

/** A deferred made outside an effect. */
export const makeDeferredUnsafe = <A, E = never>(): Deferred.Deferred<A, E> => Deferred.makeUnsafe<A, E>()

/** Recovers from every cause of failure, interruptions and defects included. */
export const catchCause: typeof Effect.catchCause = Effect.catchCause

/** Recovers from every failure of the error channel. */
export const catchFailure: typeof Effect.catch = Effect.catch

/** Recovers from a defect. */
export const catchDefect: typeof Effect.catchDefect = Effect.catchDefect

/** Whether a cause holds interruptions only. */
export const hasInterruptsOnly: <E>(self: Cause.Cause<E>) => boolean = Cause.hasInterruptsOnly

/** A tuple schema of its elements. */
export const Tuple = <const Elements extends ReadonlyArray<Schema.Top>>(elements: Elements): Schema.Tuple<Elements> =>
  Schema.Tuple(elements)

/** A tuple's element that may be absent. */
export const optionalElement = <S extends Schema.Top>(self: S): Schema.optionalKey<S> => Schema.optionalKey(self)

/** Decodes an unknown value, answering a {@link Result} whose failure has a message. */
export const decodeUnknownResult = <A, I>(
  schema: Schema.Codec<A, I>
): (input: unknown) => Result<A, { readonly message: string }> => Schema.decodeUnknownResult(schema)

/**
 * What a duration may be given as: a `Duration`, a number of milliseconds or a text such as
 * `"30 seconds"`.
 */
export type DurationInput = Duration.Input

/** A duration from what it was given as, throwing on a text it cannot read. */
export const durationFromInput: (input: DurationInput) => Duration.Duration = Duration.fromInputUnsafe

/** A subscription to a hub, what `PubSub.subscribe` gives. */
export type Subscription<A> = PubSub.Subscription<A>

// --- layers ---

// --- layers: memory ---

/**
 * A value each fiber holds for itself and the fibers it forks, its initial value where none was
 * set (a `Context.Reference`, provided with {@link locally}).
 */
export type FiberLocal<A> = Context.Reference<A>

/** A {@link FiberLocal} made outside an effect, named `key`, `initial()` where none was set. */
export const makeFiberLocalUnsafe = <A>(key: string, initial: () => A): FiberLocal<A> =>
  Context.Reference(key, { defaultValue: initial })

/** The current fiber's value of a {@link FiberLocal}. */
export const getFiberLocal = <A>(self: FiberLocal<A>): Effect.Effect<A> => Effect.service(self)

/** Runs an effect with a {@link FiberLocal} set to `value` (`Effect.provideService`). */
export const locally = <B, E, R, A>(effect: Effect.Effect<B, E, R>, self: FiberLocal<A>, value: A): Effect.Effect<
  B,
  E,
  R
> => Effect.provideService(effect, self, value)

/** A layer whose services are `f` of those `self` builds. */
export const mapLayerContext = <A, E, R, B>(
  self: Layer.Layer<A, E, R>,
  f: (context: Context.Context<A>) => Context.Context<B>
): Layer.Layer<B, E, R> => Layer.flatMap(self, (context) => Layer.succeedContext(f(context)))

// --- layers: io ---

// The platform's services are named here by their tags' keys (Effect 4 makes each with
// `Context.Service(key)`, so a tag of the same key is the same service) and its request helpers
// imported when a client is made: every entry imports this module, and none of them needs
// Effect's HTTP or file system modules loaded for it.

/** The file system service. */
export type FileSystem = EffectFileSystem.FileSystem

/** The tag of the file system service. */
export const FileSystem: Context.Service<FileSystem, FileSystem> = Context.Service<FileSystem>("effect/FileSystem")

/** What the file system tells of a file. */
export type FileInfo = EffectFileSystem.File.Info

/** The path service. */
export type Path = EffectPath.Path

/** The tag of the path service. */
export const Path: Context.Service<Path, Path> = Context.Service<Path>("effect/Path")

/** A failure of the file system. */
export type PlatformError = EffectPlatformError.PlatformError

/** Whether a failure of the file system is a missing file. */
export const isNotFound = (error: PlatformError): boolean => error.reason._tag === "NotFound"

/** The HTTP client service. */
export type HttpClient = EffectHttpClient.HttpClient

/** The tag of the HTTP client service. */
export const HttpClient: Context.Service<HttpClient, HttpClient> = Context.Service<HttpClient>("effect/HttpClient")

/** A failure of an HTTP client. */
export type HttpClientError = EffectHttpClientError.HttpClientError

/**
 * What went wrong in an HTTP client's failure: its kind (the tag of its `reason`), its cause and
 * its description.
 */
export const httpErrorReason = (error: HttpClientError): {
  readonly kind: string
  readonly cause: unknown
  readonly description: string | undefined
} => ({ kind: error.reason._tag, cause: error.reason.cause, description: error.reason.description })

/** A request of an HTTP client. */
export type HttpClientRequest = EffectHttpClientRequest.HttpClientRequest

/** The makers of a request that {@link loadHttpRequests} gives. */
export interface HttpRequests {
  /** A `POST` to `url`. */
  readonly post: (url: string) => HttpClientRequest
  /** Asks for JSON. */
  readonly acceptJson: (self: HttpClientRequest) => HttpClientRequest
  /** Sends `Authorization: Bearer …`. */
  readonly bearerToken: (token: string | Redacted.Redacted) => (self: HttpClientRequest) => HttpClientRequest
  /** A body of JSON, the value not checked. */
  readonly bodyJsonUnsafe: (self: HttpClientRequest, body: unknown) => HttpClientRequest
}

/** The makers of a request, from `effect/http/HttpClientRequest`, imported when first asked for. */
export const loadHttpRequests: Effect.Effect<HttpRequests> = Effect.map(
  Effect.promise(() => import("effect/http/HttpClientRequest")),
  (module): HttpRequests => ({
    post: (url) => module.post(url),
    acceptJson: module.acceptJson,
    bearerToken: (token) => module.bearerToken(token),
    bodyJsonUnsafe: (self, body) => module.bodyJsonUnsafe(self, body)
  })
)

/** A failure to read a configuration. */
export type ConfigError = EffectConfig.ConfigError

/** A configuration of a text. */
export const configString = (name: string): EffectConfig.Config<string> => EffectConfig.String(name)

/** A configuration of a duration, such as `90 seconds`. */
export const configDuration = (name: string): EffectConfig.Config<Duration.Duration> => EffectConfig.Duration(name)

/** A configuration of a secret text. */
export const configRedacted = (name: string): EffectConfig.Config<Redacted.Redacted<string>> =>
  EffectConfig.Redacted(name)

/** An effect that gives up after `duration`, then runs `orElse` instead. */
export const timeoutOrElse = <A2, E2, R2>(options: {
  readonly duration: DurationInput
  readonly orElse: () => Effect.Effect<A2, E2, R2>
}) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A | A2, E | E2, R | R2> =>
  Effect.timeoutOrElse(self, { duration: options.duration, orElse: options.orElse })

/** Decodes an unknown value, answering a {@link Result} whose failure is the schema's error. */
export const decodeUnknownSchemaResult = <A, I>(
  schema: Schema.Codec<A, I>
): (input: unknown) => Result<A, SchemaError> => Schema.decodeUnknownResult(schema)

/**
 * Where a decoding's first problem is, and whether it is a missing key; `undefined` when it names
 * none.
 */
export const firstIssue = (
  error: SchemaError
): { readonly path: ReadonlyArray<PropertyKey>; readonly missing: boolean } | undefined => {
  const walk = (
    issue: SchemaIssue.Issue,
    path: ReadonlyArray<PropertyKey>
  ): { readonly path: ReadonlyArray<PropertyKey>; readonly missing: boolean } | undefined => {
    switch (issue._tag) {
      case "Pointer":
        return walk(issue.issue, [...path, ...issue.path])
      case "Filter":
      case "Encoding":
        return walk(issue.issue, path)
      case "Composite":
      case "AnyOf": {
        const [first] = issue.issues
        return first === undefined ? undefined : walk(first, path)
      }
      default:
        return { path, missing: issue._tag === "MissingKey" }
    }
  }
  return walk(error.issue, [])
}

/** Decodes an unknown value as an effect. */
export const decodeUnknownEffect: typeof Schema.decodeUnknownEffect = Schema.decodeUnknownEffect

// --- layers: sql ---

/** The client of a SQL database (Effect 4's `SqlClient` of `effect/sql`). */
export type SqlClient = SqlClientModule.SqlClient

/** The tag of the client of a SQL database (Effect 4's `SqlClient.SqlClient` of `effect/sql`). */
export const SqlClient: typeof SqlClientModule.SqlClient = SqlClientModule.SqlClient

/** The failure of a SQL statement (Effect 4's `SqlError` of `effect/sql`). */
export type SqlError = SqlErrorModule.SqlError

/** A SQL statement of a client, its rows typed `A` (Effect 4's `Statement` of `effect/sql`). */
export type SqlStatement<A> = SqlStatementModule.Statement<A>

/** A row of a SQL answer (Effect 4's `SqlConnection.Row` of `effect/sql`). */
export type SqlRow = SqlConnection.Row

/** The failure of a migration (Effect 4's `Migrator.MigrationError` of `effect/sql`). */
export type MigrationError = Migrator.MigrationError

/**
 * Brings the database behind the current `SqlClient` up to the migrations of a record keyed
 * `<id>_<name>`, keeping which ran in `table`; answers those it ran (Effect 4's
 * `Migrator.make({})({ loader: Migrator.fromRecord(migrations), table })` of `effect/sql`).
 */
export const runMigrations = (options: {
  readonly migrations: Record<string, Effect.Effect<void, unknown, SqlClient>>
  readonly table: string
}): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, MigrationError | SqlError, SqlClient> =>
  Migrator.make({})({ loader: Migrator.fromRecord(options.migrations), table: options.table })

/**
 * The module of the service that tells the clients of a SQL database which keys a write
 * invalidated, imported (Effect 4's `effect/reactivity/Reactivity`).
 */
export const importReactivity = (): Promise<typeof ReactivityModule> => import("effect/reactivity/Reactivity")

/**
 * A SQLite database that could not be opened and brought up to the schema (Effect 4's
 * `src/effect4/layers/sql/SqliteNode`'s `OpenError`, named by its fields, so that the declarations of
 * the entries that do not open SQLite name nothing of `node:sqlite`).
 */
export interface SqliteOpenError {
  readonly _tag: "OpenError"
  readonly path: string
  readonly reason: string
}

/** The SQLite layer's module (`node:sqlite`'s, `SqliteNode`), imported when a file is first opened. */
const sqliteModule = Effect.promise(() => import("../../effect4/layers/sql/SqliteNode.js"))

/** How a SQLite file is opened: its path, and how long an operation waits for another connection's lock. */
export interface SqliteOptions {
  readonly filename: string
  readonly busyTimeoutMs?: number | undefined
}

/**
 * Opens a SQLite file for the production layers, migrated, as a `SqlClient` closed with the scope
 * (Effect 4's `src/effect4/layers/sql/SqliteNode`'s `open`, over `node:sqlite`; that module is imported
 * when a file is first opened).
 */
export const openSqlite = (options: SqliteOptions): Effect.Effect<SqlClient, SqliteOpenError, Scope.Scope> =>
  Effect.flatMap(sqliteModule, (module) => module.open(options))

/**
 * Opens a SQLite file for a reader (`compact`'s settings, `settings get`): as {@link openSqlite}, but
 * a file that may not be written is read from a private copy, and a missing one that cannot be made
 * is an empty database in memory (`src/face/layers/sql/SqliteReading`).
 */
export const openSqliteReading = (options: SqliteOptions): Effect.Effect<SqlClient, SqliteOpenError, Scope.Scope> =>
  Effect.flatMap(sqliteModule, (module) => module.openReading(options))

/**
 * Why SQLite cannot be used in this installation, or `undefined` when it can: always `undefined`
 * on Effect 4, whose SQLite is Node's own `node:sqlite` (Node 22.19 or newer, as Effect 4 asks).
 */
export const sqliteUnavailable: Effect.Effect<string | undefined> = Effect.succeed(undefined)

/**
 * A layer whose failure is mapped by `f`, its defects and interruption kept (Effect 3's
 * `Layer.mapError`; Effect 4 has none).
 */
export const layerMapError =
  <E, E2>(f: (error: E) => E2) => <A, R>(self: Layer.Layer<A, E, R>): Layer.Layer<A, E2, R> =>
    // Effect 4's catchCause answers the intersection of both layers' services: a failing layer adds none.
    Layer.catchCause(self, (cause) => Layer.effectDiscard(Effect.failCause(Cause.map(cause, f)))) as Layer.Layer<
      A,
      E2,
      R
    >

/**
 * A layer of one service made by a scoped effect, its resources released with the layer (Effect 4's
 * `Layer.effect`).
 */
export const layerScoped: typeof Layer.effect = Layer.effect

/**
 * A layer of the services of a context made by a scoped effect, its resources released with the
 * layer (Effect 4's `Layer.effectContext`).
 */
export const layerScopedContext: typeof Layer.effectContext = Layer.effectContext

/**
 * A scope of its own inside `scope`, its finalizers run one after another when it is closed
 * (Effect 4's `Scope.fork(scope, "sequential")`).
 */
export const forkScope = (scope: Scope.Scope): Effect.Effect<Scope.Closeable> => Scope.fork(scope, "sequential")

/** An effect run in a scope that outlives it (Effect 4's `Scope.provide`). */
export const provideScope: typeof Scope.provide = Scope.provide

// --- adapters ---

/** A {@link Result} as an effect that succeeds with its value or fails with its error. */
export const fromResult = <A, E>(result: Result<A, E>): Effect.Effect<A, E> => Effect.fromResult(result)

/** Whether a value is a {@link Result}. */
export const isResult: (input: unknown) => input is Result<unknown, unknown> = EffectResult.isResult

/**
 * A decoding's problems, each where it is and what it is (Effect 4's standard schema formatter,
 * `SchemaIssue.makeFormatterStandardSchemaV1`): the @effect/ai `Prompt` adapter names the first
 * when an encoded message is not one.
 */
export const formatIssues = (
  error: SchemaError
): ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> =>
  SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues.map((issue) => ({
    message: issue.message,
    path: (issue.path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment)
  }))

/**
 * Node's file system and paths (`@effect/platform-node` 4's `NodeFileSystem` and `NodePath`),
 * imported when the layer is built, so that a program that never builds it never loads the platform.
 */
export const nodeFileSystem: Layer.Layer<FileSystem | Path> = Layer.unwrap(
  Effect.map(
    Effect.promise(() =>
      Promise.all([import("@effect/platform-node/NodeFileSystem"), import("@effect/platform-node/NodePath")])
    ),
    ([fileSystem, path]) => Layer.merge(fileSystem.layer, path.layer)
  )
)

/** Node's `HttpClient` (`@effect/platform-node` 4's, over undici), imported when the layer is built. */
export const nodeHttpClient: Layer.Layer<HttpClient> = Layer.unwrap(
  Effect.map(Effect.promise(() => import("@effect/platform-node/NodeHttpClient")), (module) => module.layerUndici)
)

/** The layer an effect makes (Effect 4's `Layer.unwrap`). */
export const unwrapLayer: typeof Layer.unwrap = Layer.unwrap
