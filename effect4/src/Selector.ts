/**
 * Path patterns over a JSON tree on Effect 4 (docs/effect4.md): the same `Path` and `Declared`
 * selectors as `context-compressor`'s `Selector`, declared on Effect 4's Schema, with the shared
 * core's functions under their names.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Builders from "../../src/internal/reduce/Builders.js"
import * as RuleData from "../../src/internal/reduce/RuleData.js"
import * as RuleForms from "../../src/internal/reduce/RuleForms.js"

/**
 * The type of value a selector may be restricted to.
 *
 * @since 0.1.0
 * @category models
 */
export const ValueType = Schema.Literals(["string", "number", "boolean", "null", "array", "object"])

/**
 * @since 0.1.0
 * @category models
 */
export type ValueType = typeof ValueType.Type

/**
 * Selects the nodes matching a path pattern, optionally only those holding a value of one type.
 *
 * @since 0.1.0
 * @category models
 */
export class Path extends Schema.TaggedClass<Path>()("Path", {
  pattern: Schema.String,
  valueType: Schema.optionalKey(ValueType)
}) {}

/**
 * Selects the literal paths that the envelope itself lists at `at`.
 *
 * @since 0.1.0
 * @category models
 */
export class Declared extends Schema.TaggedClass<Declared>()("Declared", {
  at: Schema.String,
  refuse: Schema.Array(Schema.String)
}) {}

/**
 * A selector: a pattern written in the rule, or paths declared by the envelope.
 *
 * @since 0.1.0
 * @category models
 */
export const Selector = Schema.Union([Path, Declared])

/**
 * @since 0.1.0
 * @category models
 */
export type Selector = typeof Selector.Type

/**
 * The constructors of this face's selectors, by tag, which the core's builders build with.
 *
 * @since 0.1.0
 * @category constructors
 */
export const kit: Builders.SelectorKit = {
  Path: (fields) => new Path(fields),
  Declared: (fields) => new Declared(fields)
}

const builders = Builders.selectors(kit)

/**
 * Selects nodes by pattern.
 *
 * @since 0.1.0
 * @category constructors
 */
export const path = (pattern: string, valueType?: ValueType): Path => builders.path(pattern, valueType) as Path

/**
 * Selects the literal paths an envelope lists at `at`, refusing any whose first segment is one of
 * `refuse`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const declared = (at: string, refuse: ReadonlyArray<string> = []): Declared =>
  builders.declared(at, refuse) as Declared

/**
 * One compiled segment of a pattern.
 *
 * @since 0.1.0
 * @category models
 */
export type Segment = RuleData.Segment

/**
 * Compiles a pattern into segments.
 *
 * @since 0.1.0
 * @category compiling
 */
export const compile: (pattern: string) => ReadonlyArray<Segment> = RuleData.compile

/**
 * Compiles a declared (literal) path.
 *
 * @since 0.1.0
 * @category compiling
 */
export const compileLiteral: (path: string) => ReadonlyArray<Segment> = RuleData.compileLiteral

/**
 * Whether a segment consumes the edge from a node to one of its children.
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
 * @since 0.1.0
 * @category formatting
 */
export const format: (selector: Selector) => string = RuleForms.formatSelector
