/**
 * Conditions on a whole envelope: which tool and action produced it, whether a
 * field holds a value. Rules are scoped with them (`Rule.when`), policies accept
 * envelopes with them. Like `Predicate`, they compose with `and`, `or`, `not`;
 * unlike a predicate function, a condition is a value that can be printed and
 * compared.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as RuleData from "../../core/reduce/RuleData.js"
import * as RuleForms from "../../core/reduce/RuleForms.js"
import { ValueType } from "./Selector.js"

/**
 * A JSON scalar a field can be compared with.
 *
 * @since 0.1.0
 * @category models
 */
export const Scalar = Compat.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Null])

/**
 * @since 0.1.0
 * @category models
 */
export type Condition =
  | Always
  | Equals
  | Exists
  | And
  | Or
  | Not

/**
 * Holds for every envelope.
 *
 * @since 0.1.0
 * @category models
 */
export class Always extends Schema.TaggedClass<Always>()("Always", {}) {}

/**
 * Holds when the field at `path` (dotted, own keys) equals `value`.
 *
 * @since 0.1.0
 * @category models
 */
export class Equals extends Schema.TaggedClass<Equals>()("Equals", {
  path: Schema.String,
  value: Scalar
}) {}

/**
 * Holds when the field at `path` is present (any value, `null` included), and
 * holds a value of `valueType` when one is given.
 *
 * @since 0.1.0
 * @category models
 */
export class Exists extends Schema.TaggedClass<Exists>()("Exists", {
  path: Schema.String,
  valueType: Compat.optionalKey(ValueType)
}) {}

/**
 * Holds when every condition holds.
 *
 * @since 0.1.0
 * @category models
 */
export class And extends Schema.TaggedClass<And>()("And", {
  conditions: Schema.Array(Schema.suspend((): Compat.Codec<Condition> => Condition))
}) {}

/**
 * Holds when at least one condition holds.
 *
 * @since 0.1.0
 * @category models
 */
export class Or extends Schema.TaggedClass<Or>()("Or", {
  conditions: Schema.Array(Schema.suspend((): Compat.Codec<Condition> => Condition))
}) {}

/**
 * Holds when the condition does not.
 *
 * @since 0.1.0
 * @category models
 */
export class Not extends Schema.TaggedClass<Not>()("Not", {
  condition: Schema.suspend((): Compat.Codec<Condition> => Condition)
}) {}

/**
 * The schema of a condition.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Condition: Compat.Codec<Condition> = Compat.Union([Always, Equals, Exists, And, Or, Not])

/**
 * The condition that always holds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const always: Condition = new Always()

/**
 * The field at `path` equals `value`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const equals = (path: string, value: string | number | boolean | null): Condition => new Equals({ path, value })

/**
 * The field at `path` is present.
 *
 * @since 0.1.0
 * @category constructors
 */
export const exists = (path: string, valueType?: ValueType): Condition =>
  valueType === undefined ? new Exists({ path }) : new Exists({ path, valueType })

/**
 * The envelope was produced by `tool`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = (name: string): Condition => equals("tool", name)

/**
 * The envelope was produced by `tool` with `action`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolAction = (toolName: string, action: string): Condition => and(tool(toolName), equals("action", action))

/**
 * Every condition holds.
 *
 * @since 0.1.0
 * @category combinators
 */
export const and = (...conditions: ReadonlyArray<Condition>): Condition => new And({ conditions: [...conditions] })

/**
 * At least one condition holds.
 *
 * @since 0.1.0
 * @category combinators
 */
export const or = (...conditions: ReadonlyArray<Condition>): Condition => new Or({ conditions: [...conditions] })

/**
 * The condition does not hold.
 *
 * @since 0.1.0
 * @category combinators
 */
export const not = (condition: Condition): Condition => new Not({ condition })

/**
 * The condition that never holds (an empty `or`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const never: Condition = new Or({ conditions: [] })

const structurallyEqual = Compat.toEquivalence(Condition)

/**
 * The normal form of a condition: nested `and`s and `or`s flattened, repeated
 * operands dropped, `always` dropped from an `and` (an empty `and` is
 * `always`, an `and` holding `never` is `never`), an `or` holding `always` is
 * `always`, a one-operand `and`/`or` is its operand, and `not not c` is `c`.
 * It holds for exactly the envelopes the condition holds for.
 *
 * @since 0.1.0
 * @category normalizing
 */
export const normalize = (condition: Condition): Condition => {
  switch (condition._tag) {
    case "Always":
    case "Equals":
    case "Exists":
      return condition
    case "And": {
      const operands = distinct(
        condition.conditions.map(normalize).flatMap((c) =>
          c._tag === "And" ? c.conditions : c._tag === "Always" ? [] : [c]
        )
      )
      if (operands.some(isNever)) return never
      return operands.length === 0 ? always : operands.length === 1 ? operands[0]! : and(...operands)
    }
    case "Or": {
      const operands = distinct(
        condition.conditions.map(normalize).flatMap((c) => (c._tag === "Or" ? c.conditions : [c]))
      )
      if (operands.some((c) => c._tag === "Always")) return always
      return operands.length === 1 ? operands[0]! : or(...operands)
    }
    case "Not": {
      const operand = normalize(condition.condition)
      if (operand._tag === "Not") return operand.condition
      if (operand._tag === "Always") return never
      if (isNever(operand)) return always
      return not(operand)
    }
  }
}

const isNever = (condition: Condition): boolean => condition._tag === "Or" && condition.conditions.length === 0

/** The conditions in order, each structurally equal one after the first dropped. */
const distinct = (conditions: ReadonlyArray<Condition>): Array<Condition> => {
  const out: Array<Condition> = []
  for (const condition of conditions) if (!out.some((seen) => structurallyEqual(seen, condition))) out.push(condition)
  return out
}

/**
 * Two conditions with the same normal form ({@link normalize}): they hold for
 * the same envelopes.
 *
 * @since 0.1.0
 * @category instances
 */
export const equivalence = (self: Condition, that: Condition): boolean =>
  structurallyEqual(normalize(self), normalize(that))

/**
 * Evaluates a condition against an envelope (or any JSON value).
 *
 * @example
 * ```ts
 * import { Condition } from "context-compressor"
 *
 * const failedCommand = Condition.and(Condition.tool("workspace_command"), Condition.equals("ok", false))
 * assert.strictEqual(Condition.holds(failedCommand, { tool: "workspace_command", ok: false }), true)
 * assert.strictEqual(Condition.holds(failedCommand, { tool: "workspace_command", ok: true }), false)
 * // Conditions are values: `and` with `always` is the same condition.
 * assert.ok(Condition.equivalence(Condition.and(failedCommand, Condition.always), failedCommand))
 * ```
 *
 * @since 0.1.0
 * @category evaluation
 */
export const holds: (condition: Condition, envelope: unknown) => boolean = RuleData.holds

/**
 * Formats a condition as one line: `tool = "workspace_plan" and action = "propose"`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const format: (condition: Condition) => string = RuleForms.formatCondition
