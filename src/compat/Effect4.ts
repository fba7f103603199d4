/**
 * The Effect 4 side of the face's compat: the same names as `Effect3.ts`, each Effect 4's API.
 * The Effect 4 build resolves the face's `#compat` here (docs/effect4.md, "One source").
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
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

// --- rules ---

// --- engine ---

// --- layers ---

// --- adapters ---
