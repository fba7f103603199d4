/**
 * A retention policy: which inputs it accepts, the one composed rule it
 * applies, what it carries past the cap, and what it emits when the reduced
 * envelope still does not fit.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as RuleData from "../../core/reduce/RuleData.js"
import * as RuleForms from "../../core/reduce/RuleForms.js"
import * as Condition from "./Condition.js"
import * as Rule from "./Rule.js"
import * as Selector from "./Selector.js"

/**
 * A call that recovers state the overflow path left out. `arguments` is
 * written as given; with `forEach`, one call is made per distinct id of that
 * prefix, the id written under `idArgument`; with `onlyIf`, the call is made
 * once, when at least one id of that prefix is present.
 *
 * @since 0.1.0
 * @category models
 */
export class RecoveryCall extends Schema.Class<RecoveryCall>("RecoveryCall")({
  tool: Schema.String,
  arguments: Compat.Record(Schema.String, Schema.String),
  forEach: Compat.optionalKey(Schema.String),
  idArgument: Compat.optionalKey(Schema.String),
  onlyIf: Compat.optionalKey(Schema.String)
}) {}

/**
 * A path pattern whose matches the overflow path lists as `path: value`.
 *
 * @since 0.1.0
 * @category models
 */
export class Preserved extends Schema.Class<Preserved>("Preserved")({
  pattern: Schema.String,
  valueType: Compat.optionalKey(Selector.ValueType)
}) {}

/**
 * Overflow by recovery list (SPEC R1.7): the header, the carried values, and a
 * list of recovery calls filled with the envelope's real ids, bounded by the cap.
 *
 * @since 0.1.0
 * @category models
 */
export class RecoveryList extends Schema.TaggedClass<RecoveryList>()("RecoveryList", {
  /** Header fields copied (shortened to labels) from the reduced envelope. */
  header: Schema.Array(Schema.String),
  /** Id prefixes the recovery calls may use. */
  idPrefixes: Schema.Array(Schema.String),
  calls: Schema.Array(RecoveryCall),
  /** Paths (of the reduced envelope) whose values are listed: truncation flags and counters. */
  preserve: Schema.Array(Preserved),
  /** Dotted path of a list of facts to carry while they fit. */
  facts: Compat.optionalKey(Schema.String),
  /**
   * Paths of the reduced envelope copied whole while they fit, after the
   * facts: small records the model plans around (capabilities, the job, the plan).
   */
  essentials: Compat.optionalKeyWithDefault(Schema.Array(Schema.String), () => [])
}) {}

/**
 * Overflow by head-and-tail clipping of the reduced envelope's text.
 *
 * @since 0.1.0
 * @category models
 */
export class ClipText extends Schema.TaggedClass<ClipText>()("ClipText", {}) {}

/**
 * What a policy does when its reduced envelope still passes the cap.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Overflow = Compat.Union([RecoveryList, ClipText])

/**
 * @since 0.1.0
 * @category models
 */
export type Overflow = typeof Overflow.Type

/**
 * A retention policy.
 *
 * @since 0.1.0
 * @category models
 */
export class Policy extends Schema.Class<Policy>("Policy")({
  name: Schema.String,
  description: Schema.String,
  accepts: Condition.Condition,
  rule: Rule.Rule,
  /**
   * Dotted paths of values carried verbatim beyond the cap (a staged
   * approval): they count neither against the cap nor are cut by overflow.
   */
  carry: Schema.Array(Schema.String),
  overflow: Overflow
}) {}

/**
 * Makes a policy.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Rule } from "context-compressor"
 *
 * const ticketing = Policy.make({
 *   name: "ticketing/v2",
 *   description: "tool results of the ticketing/v2 protocol",
 *   accepts: Condition.equals("protocol", "ticketing/v2"),
 *   rule: Rule.prune("data.tickets.attachments", { name: "dropAttachments", reason: "re-fetched by ticket id" })
 * })
 * assert.strictEqual(ticketing.name, "ticketing/v2")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly name: string
  readonly description: string
  readonly accepts: Condition.Condition
  readonly rule: Rule.Rule
  readonly carry?: ReadonlyArray<string>
  readonly overflow?: Overflow
}): Policy =>
  new Policy({
    name: options.name,
    description: options.description,
    accepts: options.accepts,
    rule: options.rule,
    carry: [...(options.carry ?? [])],
    overflow: options.overflow ?? new ClipText()
  })

/**
 * The first policy that accepts a value, if any.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const select: (policies: ReadonlyArray<Policy>, value: unknown) => Policy | undefined = RuleData.select

/**
 * Prints a policy: its name, what it accepts, and its rule as an outline.
 *
 * @since 0.1.0
 * @category formatting
 */
export const format: (policy: Policy) => string = RuleForms.formatPolicy
