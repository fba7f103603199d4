/**
 * The Effect 3 side of the face's compat: every API the face uses whose name or shape differs
 * between Effect 3 and Effect 4, under one name for both. The face's modules import it as
 * `#compat`; the Effect 3 build resolves that here, the Effect 4 build to `Effect4.ts`, which
 * exports the same names (docs/effect4.md, "One source"). Where the two majors differ in design,
 * the names follow Effect 4.
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

// --- rules ---

// --- engine ---

// --- layers ---

// --- adapters ---
