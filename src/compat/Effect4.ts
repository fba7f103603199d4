/**
 * The Effect 4 side of the face's compat: the same names as `Effect3.ts`, each Effect 4's API.
 * The Effect 4 build resolves the face's `#compat` here (docs/effect4.md, "One source").
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Equivalence from "effect/Equivalence"
import * as Option from "effect/Option"
import * as EffectResult from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

/**
 * The major of Effect this build of the face is compiled against.
 *
 * @since 0.1.0
 * @category compat
 */
export const major = 4 as const

// --- services ---

/**
 * A service's tag, declared as a class: `class X extends Service<X, Shape>()("id") {}`.
 *
 * @since 0.1.0
 * @category compat
 */
export const Service = <Self, Shape>() => <const Id extends string>(id: Id): Context.ServiceClass<Self, Id, Shape> =>
  Context.Service<Self, Shape>()(id)

/**
 * The failure of a schema's decoding or encoding.
 *
 * @since 0.1.0
 * @category compat
 */
export type SchemaError = Schema.SchemaError

/**
 * A schema's decoder of its encoded type, as an effect.
 *
 * @since 0.1.0
 * @category compat
 */
export const decodeEffect: typeof Schema.decodeEffect = Schema.decodeEffect

/**
 * A schema's encoder of its type, as an effect.
 *
 * @since 0.1.0
 * @category compat
 */
export const encodeEffect: typeof Schema.encodeEffect = Schema.encodeEffect

/**
 * A schema of JSON text whose parsed value `schema` decodes.
 *
 * @since 0.1.0
 * @category compat
 */
export const fromJsonString = <S extends Schema.Top>(schema: S): Schema.fromJsonString<S> =>
  Schema.fromJsonString(schema)

/**
 * A field that is `value()` when absent or `undefined`, in decoding and in the constructor alike.
 *
 * @since 0.1.0
 * @category compat
 */
export const optionalWithDefault = <S extends Schema.Top & Schema.WithoutConstructorDefault>(
  schema: S,
  value: () => S["Encoded"] & S["~type.make.in"]
) =>
  schema.pipe(
    Schema.withDecodingDefault(Effect.sync(value)),
    Schema.withConstructorDefault(Effect.sync(value))
  )

/**
 * A filter of numbers at least zero, to pipe a number schema through.
 *
 * @since 0.1.0
 * @category compat
 */
export const nonNegative = () => <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
  Schema.check<S>(Schema.isGreaterThanOrEqualTo(0))(self)

// --- schema ---

/**
 * A schema of one of some literal values.
 *
 * @since 0.1.0
 * @category compat
 */
export const Literals = <const L extends readonly [SchemaAST.LiteralValue, ...Array<SchemaAST.LiteralValue>]>(
  literals: L
): Schema.Literals<L> => Schema.Literals(literals)

/**
 * A schema of one of some members.
 *
 * @since 0.1.0
 * @category compat
 */
export const Union = <const M extends readonly [Schema.Top, Schema.Top, ...Array<Schema.Top>]>(
  members: M
): Schema.Union<M> => Schema.Union(members)

/**
 * A field that may be absent, never `undefined` when present.
 *
 * @since 0.1.0
 * @category compat
 */
export const optionalKey = <S extends Schema.Top>(schema: S): Schema.optionalKey<S> => Schema.optionalKey(schema)

// --- root ---

/**
 * A struct of fields whose other keys are read by a record.
 *
 * @since 0.1.0
 * @category compat
 */
export const StructWithRest = <
  const Fields extends Schema.Struct.Fields,
  const R extends Schema.$Record<Schema.Record.Key, Schema.Top>
>(
  fields: Fields,
  record: R
): Schema.StructWithRest<Schema.Struct<Fields>, readonly [R]> => Schema.StructWithRest(Schema.Struct(fields), [record])

const catch_: typeof Effect.catch = Effect.catch

export {
  /**
   * Recovers from every failure of an effect.
   *
   * @since 0.1.0
   * @category compat
   */
  catch_ as catch
}

// --- rules ---

/**
 * The answer of a computation that succeeds with an `A` or fails with an `E`.
 *
 * @since 0.1.0
 * @category compat
 */
export type Result<A, E = never> = EffectResult.Result<A, E>

/**
 * Makes a {@link Result}: `succeed`, `fail`.
 *
 * @since 0.1.0
 * @category compat
 */
export const Result: {
  readonly succeed: <A>(value: A) => Result<A>
  readonly fail: <E>(error: E) => Result<never, E>
} = { succeed: EffectResult.succeed, fail: EffectResult.fail }

/**
 * A schema whose type and encoded type are `A` and `I`, needing no services.
 *
 * @since 0.1.0
 * @category compat
 */
export type Codec<A, I = A> = Schema.Codec<A, I>

/**
 * The equivalence a schema derives for its type.
 *
 * @since 0.1.0
 * @category compat
 */
export const toEquivalence = <A>(schema: Schema.Schema<A>): Equivalence.Equivalence<A> => Schema.toEquivalence(schema)

/**
 * A schema of records from its key and value schemas.
 *
 * @since 0.1.0
 * @category compat
 */
export const Record: typeof Schema.Record = Schema.Record

/**
 * A field that may be absent, never `undefined` when present, and is `value()` when absent, in
 * decoding and in the constructor alike.
 *
 * @since 0.1.0
 * @category compat
 */
export const optionalKeyWithDefault = <S extends Schema.Top & Schema.WithoutConstructorDefault>(
  schema: S,
  value: () => S["Encoded"] & S["~type.make.in"]
) =>
  schema.pipe(
    Schema.withDecodingDefaultKey(Effect.sync(value)),
    Schema.withConstructorDefault(Effect.sync(value))
  )

/**
 * A filter of numbers above zero, to pipe a number schema through.
 *
 * @since 0.1.0
 * @category compat
 */
export const positive = () => <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
  Schema.check<S>(Schema.isGreaterThan(0))(self)

/**
 * A filter of numbers at least `minimum`, to pipe a number schema through.
 *
 * @since 0.1.0
 * @category compat
 */
export const greaterThanOrEqualTo =
  (minimum: number) => <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
    Schema.check<S>(Schema.isGreaterThanOrEqualTo(minimum))(self)

// --- engine ---

/**
 * The options of a class's constructor that skip its checks, for a value made
 * from fields already known valid.
 *
 * @since 0.1.0
 * @category compat
 */
export const disableChecks: Schema.MakeOptions = { disableChecks: true }

/**
 * `Option.some` of a value, `Option.none` for `null` and `undefined`.
 *
 * @since 0.1.0
 * @category compat
 */
export const fromNullishOr: <A>(value: A) => Option.Option<NonNullable<A>> = Option.fromNullishOr

// --- layers ---

// --- adapters ---
