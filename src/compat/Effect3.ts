/**
 * The Effect 3 side of the face's compat: every API the face uses whose name or shape differs
 * between Effect 3 and Effect 4, under one name for both. The face's modules import it as
 * `#compat`; the Effect 3 build resolves that here, the Effect 4 build to `Effect4.ts`, which
 * exports the same names (docs/effect4.md, "One source"). Where the two majors differ in design,
 * the names follow Effect 4.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Equivalence from "effect/Equivalence"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import type * as Queue from "effect/Queue"
import * as Scheduler from "effect/Scheduler"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

/**
 * The major of Effect this build of the face is compiled against.
 *
 * @since 0.1.0
 * @category compat
 */
export const major = 3 as const

// --- services ---

/**
 * A service's tag, declared as a class: `class X extends Service<X, Shape>()("id") {}`
 * (Effect 3's `Context.Tag(id)<X, Shape>()`).
 *
 * @since 0.1.0
 * @category compat
 */
export const Service = <Self, Shape>() => <const Id extends string>(id: Id): Context.TagClass<Self, Id, Shape> =>
  Context.Tag(id)<Self, Shape>()

/**
 * The failure of a schema's decoding or encoding (Effect 3's `ParseResult.ParseError`).
 *
 * @since 0.1.0
 * @category compat
 */
export type SchemaError = ParseResult.ParseError

/**
 * A schema's decoder of its encoded type, as an effect (Effect 3's `Schema.decode`).
 *
 * @since 0.1.0
 * @category compat
 */
export const decodeEffect: typeof Schema.decode = Schema.decode

/**
 * A schema's encoder of its type, as an effect (Effect 3's `Schema.encode`).
 *
 * @since 0.1.0
 * @category compat
 */
export const encodeEffect: typeof Schema.encode = Schema.encode

/**
 * A schema of JSON text whose parsed value `schema` decodes (Effect 3's `Schema.parseJson(schema)`).
 *
 * @since 0.1.0
 * @category compat
 */
export const fromJsonString = <S extends Schema.Schema.Any>(
  schema: S
): Schema.transform<Schema.SchemaClass<unknown, string>, S> => Schema.parseJson(schema)

/**
 * A field that is `value()` when absent or `undefined`, in decoding and in the constructor alike
 * (Effect 3's `Schema.optionalWith(schema, { default: value })`).
 *
 * @since 0.1.0
 * @category compat
 */
export const optionalWithDefault = <S extends Schema.Schema.All>(
  schema: S,
  value: () => Schema.Schema.Type<S>
): Schema.optionalWith<S, { default: () => Schema.Schema.Type<S> }> => Schema.optionalWith(schema, { default: value })

/**
 * A filter of numbers at least zero, to pipe a number schema through (Effect 3's `Schema.nonNegative()`).
 *
 * @since 0.1.0
 * @category compat
 */
export const nonNegative = <S extends Schema.Schema.Any>(): <A extends number>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.nonNegative<S>()

// --- schema ---

/**
 * A schema of one of some literal values (Effect 3's `Schema.Literal(...literals)`).
 *
 * @since 0.1.0
 * @category compat
 */
export const Literals = <const L extends readonly [SchemaAST.LiteralValue, ...Array<SchemaAST.LiteralValue>]>(
  literals: L
): Schema.Literal<[...L]> => Schema.Literal(...literals)

/**
 * A schema of one of some members (Effect 3's `Schema.Union(...members)`).
 *
 * @since 0.1.0
 * @category compat
 */
export const Union = <const M extends readonly [Schema.Schema.All, Schema.Schema.All, ...Array<Schema.Schema.All>]>(
  members: M
): Schema.Union<[...M]> => Schema.Union(...members)

/**
 * A field that may be absent, never `undefined` when present (Effect 3's
 * `Schema.optionalWith(schema, { exact: true })`).
 *
 * @since 0.1.0
 * @category compat
 */
export const optionalKey = <S extends Schema.Schema.All>(schema: S): Schema.optionalWith<S, { exact: true }> =>
  Schema.optionalWith(schema, { exact: true })

// --- root ---

/**
 * A struct of fields whose other keys are read by a record (Effect 3's `Schema.Struct(fields, record)`).
 *
 * @since 0.1.0
 * @category compat
 */
export const StructWithRest = <Fields extends Schema.Struct.Fields, const R extends Schema.IndexSignature.Record>(
  fields: Fields,
  record: R
): Schema.TypeLiteral<Fields, readonly [R]> => Schema.Struct(fields, record)

const catch_: typeof Effect.catchAll = Effect.catchAll

export {
  /**
   * Recovers from every failure of an effect (Effect 3's `Effect.catchAll`).
   *
   * @since 0.1.0
   * @category compat
   */
  catch_ as catch
}

// --- rules ---

/**
 * The answer of a computation that succeeds with an `A` or fails with an `E` (Effect 3's
 * `Either<A, E>`, Effect 4's `Result<A, E>`).
 *
 * @since 0.1.0
 * @category compat
 */
export type Result<A, E = never> = Either.Either<A, E>

/**
 * Makes a {@link Result}: `succeed` (Effect 3's `Either.right`), `fail` (`Either.left`).
 *
 * @since 0.1.0
 * @category compat
 */
export const Result: {
  readonly succeed: <A>(value: A) => Result<A>
  readonly fail: <E>(error: E) => Result<never, E>
} = { succeed: Either.right, fail: Either.left }

/**
 * A schema whose type and encoded type are `A` and `I`, needing no services (Effect 3's
 * `Schema.Schema<A, I>`).
 *
 * @since 0.1.0
 * @category compat
 */
export type Codec<A, I = A> = Schema.Schema<A, I>

/**
 * The equivalence a schema derives for its type (Effect 3's `Schema.equivalence`).
 *
 * @since 0.1.0
 * @category compat
 */
export const toEquivalence = <A, I, R>(schema: Schema.Schema<A, I, R>): Equivalence.Equivalence<A> =>
  Schema.equivalence(schema)

/**
 * A schema of records from its key and value schemas (Effect 3's `Schema.Record({ key, value })`).
 *
 * @since 0.1.0
 * @category compat
 */
export const Record = <K extends Schema.Schema.All, V extends Schema.Schema.All>(
  key: K,
  value: V
): Schema.Record$<K, V> => Schema.Record({ key, value })

/**
 * A field that may be absent, never `undefined` when present, and is `value()` when absent, in
 * decoding and in the constructor alike (Effect 3's
 * `Schema.optionalWith(schema, { exact: true, default: value })`).
 *
 * @since 0.1.0
 * @category compat
 */
export const optionalKeyWithDefault = <S extends Schema.Schema.All>(
  schema: S,
  value: () => Schema.Schema.Type<S>
): Schema.optionalWith<S, { exact: true; default: () => Schema.Schema.Type<S> }> =>
  Schema.optionalWith(schema, { exact: true, default: value })

/**
 * A filter of numbers above zero, to pipe a number schema through (Effect 3's `Schema.positive()`).
 *
 * @since 0.1.0
 * @category compat
 */
export const positive = <S extends Schema.Schema.Any>(): <A extends number>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.positive<S>()

/**
 * A filter of numbers at least `minimum`, to pipe a number schema through (Effect 3's
 * `Schema.greaterThanOrEqualTo(minimum)`).
 *
 * @since 0.1.0
 * @category compat
 */
export const greaterThanOrEqualTo = <S extends Schema.Schema.Any>(minimum: number): <A extends number>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.greaterThanOrEqualTo<S>(minimum)

// --- engine ---

/**
 * The options of a class's constructor that skip its checks, for a value made
 * from fields already known valid (Effect 3's `{ disableValidation: true }`).
 *
 * @since 0.1.0
 * @category compat
 */
export const disableChecks: Schema.MakeOptions = { disableValidation: true }

/**
 * `Option.some` of a value, `Option.none` for `null` and `undefined` (Effect 3's `Option.fromNullable`).
 *
 * @since 0.1.0
 * @category compat
 */
export const fromNullishOr: <A>(value: A) => Option.Option<NonNullable<A>> = Option.fromNullable

/**
 * Whether the running fiber's scheduler runs everything at once (`Effect.runSync`), where a
 * macrotask would never come (Effect 3's `FiberRef.currentScheduler` being a `SyncScheduler`).
 *
 * @since 0.1.0
 * @category compat
 */
export const schedulerIsSync: Effect.Effect<boolean> = Effect.map(
  FiberRef.get(FiberRef.currentScheduler),
  (scheduler) => scheduler instanceof Scheduler.SyncScheduler
)

/**
 * Yields the fiber to others (Effect 3's `Effect.yieldNow()`).
 *
 * @since 0.1.0
 * @category compat
 */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow()

/**
 * An effect resumed by a callback, its registration's effect run if it is interrupted (Effect 3's
 * `Effect.async`).
 *
 * @since 0.1.0
 * @category compat
 */
export const callback: typeof Effect.async = Effect.async

/**
 * An effect's success or failure as a {@link Result}, never failing (Effect 3's `Effect.either`).
 *
 * @since 0.1.0
 * @category compat
 */
export const result: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<Result<A, E>, never, R> = Effect.either

/**
 * A {@link Result} read by its two cases (Effect 3's `Either.match`, its cases renamed).
 *
 * @since 0.1.0
 * @category compat
 */
export const matchResult = <A, E, B>(
  self: Result<A, E>,
  cases: { readonly onSuccess: (value: A) => B; readonly onFailure: (error: E) => B }
): B => Either.match(self, { onRight: cases.onSuccess, onLeft: cases.onFailure })

/**
 * A semaphore: `withPermits(n)(effect)` runs the effect holding n permits.
 *
 * @since 0.1.0
 * @category compat
 */
export type Semaphore = Effect.Semaphore

/**
 * A semaphore made outside an effect (Effect 3's `Effect.unsafeMakeSemaphore`).
 *
 * @since 0.1.0
 * @category compat
 */
export const makeSemaphoreUnsafe: (permits: number) => Semaphore = Effect.unsafeMakeSemaphore

/**
 * A deferred made outside an effect (Effect 3's `Deferred.unsafeMake` with no fiber id).
 *
 * @since 0.1.0
 * @category compat
 */
export const makeDeferredUnsafe = <A, E = never>(): Deferred.Deferred<A, E> => Deferred.unsafeMake<A, E>(FiberId.none)

/**
 * Recovers from every cause of failure, interruptions and defects included (Effect 3's
 * `Effect.catchAllCause`).
 *
 * @since 0.1.0
 * @category compat
 */
export const catchCause: typeof Effect.catchAllCause = Effect.catchAllCause

/**
 * Whether a cause holds interruptions only (Effect 3's `Cause.isInterruptedOnly`).
 *
 * @since 0.1.0
 * @category compat
 */
export const hasInterruptsOnly: <E>(self: Cause.Cause<E>) => boolean = Cause.isInterruptedOnly

/**
 * A tuple schema of its elements (Effect 3's `Schema.Tuple(...elements)`).
 *
 * @since 0.1.0
 * @category compat
 */
export const Tuple = <const Elements extends Schema.TupleType.Elements>(elements: Elements): Schema.Tuple<Elements> =>
  Schema.Tuple(...elements)

/**
 * A tuple's element that may be absent (Effect 3's `Schema.optionalElement`).
 *
 * @since 0.1.0
 * @category compat
 */
export const optionalElement: <S extends Schema.Schema.Any>(self: S) => Schema.Element<S, "?"> = Schema.optionalElement

/**
 * Decodes an unknown value, answering a {@link Result} whose failure has a message (Effect 3's
 * `Schema.decodeUnknownEither`).
 *
 * @since 0.1.0
 * @category compat
 */
export const decodeUnknownResult = <A, I>(
  schema: Schema.Schema<A, I, never>
): (input: unknown) => Result<A, { readonly message: string }> => Schema.decodeUnknownEither(schema)

/**
 * What a duration may be given as: a `Duration`, a number of milliseconds or a text such as
 * `"30 seconds"` (Effect 3's `Duration.DurationInput`).
 *
 * @since 0.1.0
 * @category compat
 */
export type DurationInput = Duration.DurationInput

/**
 * A duration from what it was given as (Effect 3's `Duration.decode`, throwing on a text it cannot read).
 *
 * @since 0.1.0
 * @category compat
 */
export const durationFromInput: (input: DurationInput) => Duration.Duration = Duration.decode

/**
 * A subscription to a hub: the queue its subscriber takes published values from (Effect 3's
 * `Queue.Dequeue`, what `PubSub.subscribe` gives).
 *
 * @since 0.1.0
 * @category compat
 */
export type Subscription<A> = Queue.Dequeue<A>

// --- layers ---

// --- layers: memory ---

/**
 * A value each fiber holds for itself and the fibers it forks, its initial value where none was
 * set (Effect 3's `FiberRef.FiberRef`).
 *
 * @since 0.1.0
 * @category compat
 */
export type FiberLocal<A> = FiberRef.FiberRef<A>

/**
 * A {@link FiberLocal} made outside an effect, `initial()` where none was set; `key` names it on
 * Effect 4 (Effect 3's `FiberRef.unsafeMake(initial())`).
 *
 * @since 0.1.0
 * @category compat
 */
export const makeFiberLocalUnsafe = <A>(_key: string, initial: () => A): FiberLocal<A> => FiberRef.unsafeMake(initial())

/**
 * The current fiber's value of a {@link FiberLocal} (Effect 3's `FiberRef.get`).
 *
 * @since 0.1.0
 * @category compat
 */
export const getFiberLocal: <A>(self: FiberLocal<A>) => Effect.Effect<A> = FiberRef.get

/**
 * Runs an effect with a {@link FiberLocal} set to `value` (Effect 3's `Effect.locally`).
 *
 * @since 0.1.0
 * @category compat
 */
export const locally = <B, E, R, A>(effect: Effect.Effect<B, E, R>, self: FiberLocal<A>, value: A): Effect.Effect<
  B,
  E,
  R
> => Effect.locally(effect, self, value)

/**
 * A layer whose services are `f` of those `self` builds (Effect 3's `Layer.map`).
 *
 * @since 0.1.0
 * @category compat
 */
export const mapLayerContext = <A, E, R, B>(
  self: Layer.Layer<A, E, R>,
  f: (context: Context.Context<A>) => Context.Context<B>
): Layer.Layer<B, E, R> => Layer.map(self, f)

// --- adapters ---

/**
 * A {@link Result} as an effect that succeeds with its value or fails with its error (on Effect 3
 * an `Either` already is one: the same value, typed as an effect).
 *
 * @since 0.1.0
 * @category compat
 */
export const fromResult = <A, E>(result: Result<A, E>): Effect.Effect<A, E> => result

/**
 * Whether a value is a {@link Result} (Effect 3's `Either.isEither`).
 *
 * @since 0.1.0
 * @category compat
 */
export const isResult: (input: unknown) => input is Result<unknown, unknown> = Either.isEither
