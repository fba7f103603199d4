/**
 * Path patterns over a JSON tree: which nodes of an envelope a rule speaks of.
 *
 * A pattern is a dotted path of segments:
 * - `name`: the key `name` (a number such as `3` also selects index 3 of an array);
 * - `*Omitted`: a key matching a glob (`*` stands for any run of characters);
 * - `*`: any key;
 * - `**`: any number of levels, zero included;
 * - `[]`: any element of an array, `[3]`: element 3.
 *
 * Arrays are transparent to key segments: `data.sources.url` selects the `url` of
 * every entry of `data.sources`. Keys are matched against own keys only, so
 * `__proto__` or `constructor` in a pattern never reach a prototype.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as RuleData from "../../core/reduce/RuleData.js"
import * as RuleForms from "../../core/reduce/RuleForms.js"

/**
 * The type of value a selector may be restricted to.
 *
 * @since 0.1.0
 * @category models
 */
export const ValueType = Compat.Literals(["string", "number", "boolean", "null", "array", "object"])

/**
 * @since 0.1.0
 * @category models
 */
export type ValueType = typeof ValueType.Type

/**
 * Selects the nodes matching a path pattern, optionally only those holding a
 * value of one type.
 *
 * @since 0.1.0
 * @category models
 */
export class Path extends Schema.TaggedClass<Path>()("Path", {
  pattern: Schema.String,
  valueType: Compat.optionalKey(ValueType)
}) {}

/**
 * Selects the literal paths that the envelope itself lists at `at` (a dotted
 * path to an array of strings, or to one string), as
 * `retention.omit_when_summarizing` does. Each listed path is taken literally:
 * no globs, own keys only.
 *
 * @since 0.1.0
 * @category models
 */
export class Declared extends Schema.TaggedClass<Declared>()("Declared", {
  at: Schema.String,
  /** Top-level keys that a declared path may not name (the envelope's header). */
  refuse: Schema.Array(Schema.String)
}) {}

/**
 * A selector: a pattern written in the rule, or paths declared by the envelope.
 *
 * @since 0.1.0
 * @category models
 */
export const Selector = Compat.Union([Path, Declared])

/**
 * @since 0.1.0
 * @category models
 */
export type Selector = typeof Selector.Type

/**
 * Selects nodes by pattern.
 *
 * @since 0.1.0
 * @category constructors
 */
export const path = (pattern: string, valueType?: ValueType): Path =>
  valueType === undefined ? new Path({ pattern }) : new Path({ pattern, valueType })

/**
 * Selects the literal paths an envelope lists at `at`, refusing any whose first
 * segment is one of `refuse`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const declared = (at: string, refuse: ReadonlyArray<string> = []): Declared =>
  new Declared({ at, refuse: [...refuse] })

/**
 * One compiled segment of a pattern.
 *
 * @since 0.1.0
 * @category models
 */
export type Segment = RuleData.Segment

/**
 * Compiles a pattern into segments. Every string is a pattern: the empty string
 * selects the root.
 *
 * @since 0.1.0
 * @category compiling
 */
export const compile: (pattern: string) => ReadonlyArray<Segment> = RuleData.compile

/**
 * Compiles a declared (literal) path: every segment is a plain key, whatever
 * characters it holds.
 *
 * @since 0.1.0
 * @category compiling
 */
export const compileLiteral: (path: string) => ReadonlyArray<Segment> = RuleData.compileLiteral

/**
 * Whether a segment consumes the edge from a node to one of its children. An
 * edge is an object key (string) or an array index (number).
 *
 * @since 0.1.0
 * @category matching
 */
export const stepResult: (segment: Segment, edge: string | number) => "advance" | "stay" | "fail" = RuleData.stepResult

/**
 * Whether a value has the given type.
 *
 * @since 0.1.0
 * @category matching
 */
export const hasValueType: (value: unknown, valueType: ValueType) => boolean = RuleData.hasValueType

/**
 * Formats a selector the way it is written.
 *
 * @example
 * ```ts
 * import { Selector } from "context-compressor"
 *
 * assert.strictEqual(Selector.format(Selector.path("data.sources[].url", "string")), "data.sources[].url (string)")
 * assert.strictEqual(Selector.format(Selector.declared("retention.omit_when_summarizing")), "paths listed at retention.omit_when_summarizing")
 * ```
 *
 * @since 0.1.0
 * @category formatting
 */
export const format: (selector: Selector) => string = RuleForms.formatSelector
