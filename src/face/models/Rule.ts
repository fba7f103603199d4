/**
 * Retention rules as values. A rule selects nodes of an envelope and decides
 * about them; rules compose with `all`, `first` and `when` into one policy rule.
 * Like `Schedule` or `Match`, a rule describes and the interpreter
 * (`Interpreter.interpret`) runs: a rule can be printed (`format`), compared
 * (`equivalence`), stored (it is a `Schema`) and generated for property tests
 * (`Arbitrary.make(Rule.Rule)`).
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import { dual } from "effect/Function"
import * as Schema from "effect/Schema"
import * as RuleData from "../../core/reduce/RuleData.js"
import * as RuleForms from "../../core/reduce/RuleForms.js"
import * as Condition from "./Condition.js"
import * as Decision from "./Decision.js"
import * as Selector from "./Selector.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Rule = Decide | All | First | When

/**
 * The primitive rule: decide `decision` about the nodes `selector` selects.
 * `name` identifies it in reports; `reason` says why, in the user's terms.
 *
 * @since 0.1.0
 * @category models
 */
export class Decide extends Schema.TaggedClass<Decide>()("Decide", {
  name: Schema.String,
  reason: Schema.String,
  selector: Selector.Selector,
  decision: Decision.Decision
}) {}

/**
 * Applies every rule; where their decisions meet on one path, precedence
 * decides (omit, verbatim, keep, then the rest).
 *
 * @since 0.1.0
 * @category models
 */
export class All extends Schema.TaggedClass<All>()("All", {
  name: Compat.optionalKey(Schema.String),
  rules: Schema.Array(Schema.suspend((): Compat.Codec<Rule> => Rule))
}) {}

/**
 * Applies the first rule whose scope accepts the envelope, and no other.
 *
 * @since 0.1.0
 * @category models
 */
export class First extends Schema.TaggedClass<First>()("First", {
  name: Compat.optionalKey(Schema.String),
  rules: Schema.Array(Schema.suspend((): Compat.Codec<Rule> => Rule))
}) {}

/**
 * Applies the rule only to envelopes for which the condition holds. `name`
 * labels it when printed.
 *
 * @since 0.1.0
 * @category models
 */
export class When extends Schema.TaggedClass<When>()("When", {
  name: Compat.optionalKey(Schema.String),
  condition: Condition.Condition,
  rule: Schema.suspend((): Compat.Codec<Rule> => Rule)
}) {}

/**
 * The schema of a rule.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Rule: Compat.Codec<Rule> = Compat.Union([Decide, All, First, When])

const structurallyEqual = Compat.toEquivalence(Rule)

/**
 * Options every primitive rule takes: its name in reports and the reason it gives.
 *
 * @since 0.1.0
 * @category models
 */
export interface Naming {
  readonly name: string
  readonly reason: string
}

const toSelector = (select: string | Selector.Selector): Selector.Selector =>
  typeof select === "string" ? Selector.path(select) : select

/**
 * The primitive constructor: decide about the selected nodes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decide = (select: string | Selector.Selector, decision: Decision.Decision, naming: Naming): Rule =>
  new Decide({ name: naming.name, reason: naming.reason, selector: toSelector(select), decision })

/**
 * Removes the selected nodes, over every other rule.
 *
 * @since 0.1.0
 * @category constructors
 */
export const omit = (select: string | Selector.Selector, naming: Naming): Rule =>
  decide(select, new Decision.Omit(), naming)

/**
 * Carries the selected nodes byte for byte, optionally only up to a limit past
 * which the node is replaced by a recovery marker.
 *
 * @since 0.1.0
 * @category constructors
 */
export const verbatim = (
  select: string | Selector.Selector,
  naming: Naming & { readonly limit?: Decision.VerbatimLimit }
): Rule =>
  decide(
    select,
    naming.limit === undefined ? new Decision.Verbatim({}) : new Decision.Verbatim({ limit: naming.limit }),
    naming
  )

/**
 * Protects the selected nodes, and everything under them, from pruning.
 *
 * @example
 * ```ts
 * import { Rule } from "context-compressor"
 *
 * // Ticket ids and states are what the agent resumes from; attachments it can fetch again.
 * const tickets = Rule.all(
 *   Rule.keep("data.tickets.id", { name: "keepTickets", reason: "a ticket is re-read by its id" }),
 *   Rule.keep("data.tickets.state", { name: "keepTickets", reason: "open or closed decides what comes next" }),
 *   Rule.prune("data.tickets.attachments", { name: "dropAttachments", reason: "re-fetched by ticket id" })
 * )
 * assert.strictEqual(tickets._tag, "All")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const keep = (select: string | Selector.Selector, naming: Naming): Rule =>
  decide(select, new Decision.Keep(), naming)

/**
 * Caps the selected arrays at `max` entries, with a counter of the rest.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cap = (select: string | Selector.Selector, max: number, naming: Naming): Rule =>
  decide(select, new Decision.Cap({ max }), naming)

/**
 * Clips the selected strings to `max` characters, head and tail.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clip = (select: string | Selector.Selector, max: number, naming: Naming): Rule =>
  decide(select, new Decision.Clip({ max }), naming)

/**
 * Removes the selected nodes unless another rule keeps them (or parts of them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const prune = (select: string | Selector.Selector, naming: Naming): Rule =>
  decide(select, new Decision.Prune(), naming)

/**
 * Shrinks bulky strings among the selected nodes that nothing keeps.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bulky = (
  select: string | Selector.Selector,
  options: Naming & { readonly maxChars: number; readonly elideBinary?: boolean }
): Rule =>
  decide(select, new Decision.Bulky({ maxChars: options.maxChars, elideBinary: options.elideBinary ?? true }), options)

/**
 * Applies every rule.
 *
 * @since 0.1.0
 * @category combinators
 */
export const all = (...rules: ReadonlyArray<Rule>): Rule => new All({ rules: [...rules] })

/**
 * Applies only the first rule whose scope accepts the envelope.
 *
 * @since 0.1.0
 * @category combinators
 */
export const first = (...rules: ReadonlyArray<Rule>): Rule => new First({ rules: [...rules] })

/**
 * Scopes a rule to the envelopes for which a condition holds.
 *
 * @since 0.1.0
 * @category combinators
 */
export const when: {
  (condition: Condition.Condition): (self: Rule) => Rule
  (self: Rule, condition: Condition.Condition): Rule
} = dual(2, (self: Rule, condition: Condition.Condition): Rule => new When({ condition, rule: self }))

/**
 * Scopes a rule to one tool, and optionally one action of it.
 *
 * @since 0.1.0
 * @category combinators
 */
export const forTool: {
  (tool: string, action?: string): (self: Rule) => Rule
  (self: Rule, tool: string, action?: string): Rule
} = dual(
  (args) => typeof args[0] === "object",
  (self: Rule, tool: string, action?: string): Rule =>
    when(self, action === undefined ? Condition.tool(tool) : Condition.toolAction(tool, action))
)

/**
 * Names a rule. On a primitive rule this is the name its decisions are
 * reported under; on `all`, `first` and `when` it labels the rule when
 * printed, and changes nothing else (a named `when` is still a `when`).
 *
 * @since 0.1.0
 * @category combinators
 */
export const named: {
  (name: string): (self: Rule) => Rule
  (self: Rule, name: string): Rule
} = dual(2, (self: Rule, name: string): Rule => {
  switch (self._tag) {
    case "Decide":
      return new Decide({ name, reason: self.reason, selector: self.selector, decision: self.decision })
    case "All":
      return new All({ rules: self.rules, name })
    case "First":
      return new First({ rules: self.rules, name })
    case "When":
      return new When({ condition: self.condition, rule: self.rule, name })
  }
})

/**
 * Whether a rule takes part for this envelope: its conditions hold (for
 * `first`, some alternative's do).
 *
 * @since 0.1.0
 * @category evaluation
 */
export const applies: (rule: Rule, envelope: unknown) => boolean = RuleData.applies

/**
 * The primitive rules that take part for an envelope, in order: conditions
 * evaluated, `first` resolved.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const activeRules = (rule: Rule, envelope: unknown): ReadonlyArray<Decide> =>
  // The core gives back the face's own values: a rule's primitives are its `Decide`s.
  RuleData.activeRules(rule, envelope) as ReadonlyArray<Decide>

/**
 * Every primitive rule of a rule tree, whatever the conditions.
 *
 * @since 0.1.0
 * @category getters
 */
export const primitives = (rule: Rule): ReadonlyArray<Decide> => RuleData.primitives(rule) as ReadonlyArray<Decide>

/**
 * Prints a rule as an indented outline, one line per rule.
 *
 * @since 0.1.0
 * @category formatting
 */
export const format: (rule: Rule) => string = RuleForms.formatRule

/**
 * The normal form of a rule, the same rule written one way. Rewrites, each
 * keeping {@link activeRules} and {@link applies} for every envelope, so the
 * normal form can stand in for the rule anywhere, inside a `first` included:
 *
 * - `all`: nested `all`s flattened (`all(all(a, b), c)` is `all(a, b, c)`), members
 *   that decide nothing dropped (an empty `all`, a `when` or `first` without a
 *   primitive), and `all(d)` of one primitive is `d`;
 * - `first`: nested `first`s flattened, alternatives that never apply dropped, and
 *   so are the ones after an alternative that always applies (a primitive or an
 *   `all`) and repeats of an earlier one; `first(r)` is `r`;
 * - `when`: its condition normalised ({@link Condition.normalize}); `when(when(r, c), d)` is
 *   `when(r, and(d, c))`; `when(r, always)` is `r`; a `when` that can never apply is `first()`;
 * - group labels (`named` on `all`, `first`, `when`) dropped: they only print.
 *
 * `all(r)` of a `when` or a `first` stays as it is: an `all` applies to every
 * envelope, which a `first` around it notices. Idempotent.
 *
 * @since 0.1.0
 * @category normalizing
 */
export const normalize = (rule: Rule): Rule => {
  switch (rule._tag) {
    case "Decide":
      return rule
    case "All": {
      const members = rule.rules
        .map(normalize)
        .flatMap((member) => (member._tag === "All" ? member.rules : hasPrimitive(member) ? [member] : []))
      return members.length === 1 && members[0]!._tag === "Decide" ? members[0]! : all(...members)
    }
    case "First": {
      const alternatives: Array<Rule> = []
      for (const alternative of rule.rules.map(normalize).flatMap((r) => (r._tag === "First" ? r.rules : [r]))) {
        if (alternatives.some((seen) => structurallyEqual(seen, alternative))) continue
        alternatives.push(alternative)
        if (appliesAlways(alternative)) break
      }
      return alternatives.length === 1 ? alternatives[0]! : first(...alternatives)
    }
    case "When": {
      const body = normalize(rule.rule)
      const condition = Condition.normalize(
        body._tag === "When" ? Condition.and(rule.condition, body.condition) : rule.condition
      )
      const inner = body._tag === "When" ? body.rule : body
      if (condition._tag === "Always") return inner
      if (
        (condition._tag === "Or" && condition.conditions.length === 0) ||
        (inner._tag === "First" && inner.rules.length === 0)
      ) {
        return first()
      }
      return new When({ condition, rule: inner })
    }
  }
}

/** Whether a rule applies to every envelope, whatever it holds: a primitive or an `all`. */
const appliesAlways = (rule: Rule): boolean => rule._tag === "Decide" || rule._tag === "All"

/** Whether a rule holds a primitive anywhere in its tree. */
const hasPrimitive = (rule: Rule): boolean => {
  switch (rule._tag) {
    case "Decide":
      return true
    case "All":
    case "First":
      return rule.rules.some(hasPrimitive)
    case "When":
      return hasPrimitive(rule.rule)
  }
}

/**
 * Whether two rules are the same rule: their normal forms ({@link normalize})
 * are equal. Equivalent rules decide the same about every envelope and can
 * replace each other anywhere; `all` is associative with the empty `all` as
 * its identity, and nested `when`s are one `when` of both conditions.
 *
 * @since 0.1.0
 * @category instances
 */
export const equivalence = (self: Rule, that: Rule): boolean => structurallyEqual(normalize(self), normalize(that))
