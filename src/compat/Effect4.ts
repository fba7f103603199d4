/**
 * The Effect 4 side of the face's compat: the same names as `Effect3.ts`, each Effect 4's API.
 * The Effect 4 build resolves the face's `#compat` here (docs/effect4.md, "One source").
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
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
 * A record schema of keys and values.
 *
 * @since 0.1.0
 * @category compat
 */
export const Record = <K extends Schema.Record.Key, V extends Schema.Top>(key: K, value: V): Schema.$Record<K, V> =>
  Schema.Record(key, value)

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

// --- engine ---

// --- layers ---

// --- adapters ---
