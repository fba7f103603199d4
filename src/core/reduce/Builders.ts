/**
 * The rule algebra's constructors, written once in the shared core (docs/effect4.md) over a face's
 * constructor kit: a kit gives one function per tag (`Path`, `Decide`, `Equals`, `Policy`, …) that
 * builds that face's Schema class, and the builders here (`keep`, `omit`, `cap`, `forTool`,
 * `named`, `equals`, `toolAction`, `make`, …) say what each constructor means in terms of them. Each
 * face gives these builders under its own names (`Rule.keep`, `Condition.tool`, `Policy.make`, …),
 * so the built-in rules (`BuiltIn.ts`), written against them, are one copy for both faces.
 *
 * @since 0.1.0
 */
import { dual } from "effect/Function"
import type * as RuleData from "./RuleData.js"

/**
 * The constructors of a face's selectors: one function per tag.
 *
 * @since 0.1.0
 * @category models
 */
export interface SelectorKit {
  readonly Path: (fields: { readonly pattern: string; readonly valueType?: RuleData.ValueType }) => RuleData.Path
  readonly Declared: (fields: { readonly at: string; readonly refuse: ReadonlyArray<string> }) => RuleData.Declared
}

/**
 * The constructors of a face's decisions: one function per tag.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecisionKit {
  readonly Omit: () => RuleData.Decision
  readonly Verbatim: (fields: { readonly limit?: RuleData.VerbatimLimit }) => RuleData.Decision
  readonly VerbatimLimit: (fields: RuleData.VerbatimLimit) => RuleData.VerbatimLimit
  readonly Keep: () => RuleData.Decision
  readonly Cap: (fields: { readonly max: number }) => RuleData.Decision
  readonly Clip: (fields: { readonly max: number }) => RuleData.Decision
  readonly Prune: () => RuleData.Decision
  readonly Bulky: (fields: { readonly maxChars: number; readonly elideBinary: boolean }) => RuleData.Decision
}

/**
 * The constructors of a face's selectors and decisions.
 *
 * @since 0.1.0
 * @category models
 */
export interface PrimitiveKit extends SelectorKit, DecisionKit {}

/**
 * The constructors of a face's conditions, `C`: one function per tag.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConditionKit<C extends RuleData.Condition> {
  readonly Always: () => C
  readonly Equals: (fields: { readonly path: string; readonly value: string | number | boolean | null }) => C
  readonly Exists: (fields: { readonly path: string; readonly valueType?: RuleData.ValueType }) => C
  readonly And: (fields: { readonly conditions: ReadonlyArray<C> }) => C
  readonly Or: (fields: { readonly conditions: ReadonlyArray<C> }) => C
  readonly Not: (fields: { readonly condition: C }) => C
}

/**
 * The constructors of a face's rules, `R`, over its conditions, selectors and decisions.
 *
 * @since 0.1.0
 * @category models
 */
export interface RuleKit<C extends RuleData.Condition, R extends RuleData.Rule> extends PrimitiveKit, ConditionKit<C> {
  readonly Decide: (fields: {
    readonly name: string
    readonly reason: string
    readonly selector: RuleData.Selector
    readonly decision: RuleData.Decision
  }) => R
  readonly All: (fields: { readonly rules: ReadonlyArray<R>; readonly name?: string }) => R
  readonly First: (fields: { readonly rules: ReadonlyArray<R>; readonly name?: string }) => R
  readonly When: (fields: { readonly condition: C; readonly rule: R; readonly name?: string }) => R
}

/**
 * The constructors of a face's policies, `P`, over its rules and conditions.
 *
 * @since 0.1.0
 * @category models
 */
export interface PolicyKit<C extends RuleData.Condition, R extends RuleData.Rule, P extends RuleData.Policy>
  extends RuleKit<C, R>
{
  readonly Policy: (fields: {
    readonly name: string
    readonly description: string
    readonly accepts: C
    readonly rule: R
    readonly carry: ReadonlyArray<string>
    readonly overflow: P["overflow"]
  }) => P
  readonly RecoveryList: (fields: Omit<RuleData.RecoveryList, "_tag">) => P["overflow"]
  readonly RecoveryCall: (fields: RuleData.RecoveryCall) => RuleData.RecoveryCall
  readonly Preserved: (fields: RuleData.RecoveryList["preserve"][number]) => RuleData.RecoveryList["preserve"][number]
  readonly ClipText: () => P["overflow"]
}

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

/**
 * The selector builders over a kit: `Selector.path` and `Selector.declared` of a face.
 *
 * @since 0.1.0
 * @category constructors
 */
export const selectors = (kit: SelectorKit) => ({
  path: (pattern: string, valueType?: RuleData.ValueType): RuleData.Path =>
    valueType === undefined ? kit.Path({ pattern }) : kit.Path({ pattern, valueType }),
  declared: (at: string, refuse: ReadonlyArray<string> = []): RuleData.Declared =>
    kit.Declared({ at, refuse: [...refuse] })
})

/**
 * The condition builders over a kit: `Condition.equals`, `Condition.tool`, `Condition.and`, … of
 * a face.
 *
 * @since 0.1.0
 * @category constructors
 */
export const conditions = <C extends RuleData.Condition>(kit: ConditionKit<C>) => {
  const equals = (path: string, value: string | number | boolean | null): C => kit.Equals({ path, value })
  const and = (...conditions: ReadonlyArray<C>): C => kit.And({ conditions: [...conditions] })
  const tool = (name: string): C => equals("tool", name)
  return {
    always: kit.Always(),
    never: kit.Or({ conditions: [] }),
    equals,
    exists: (path: string, valueType?: RuleData.ValueType): C =>
      valueType === undefined ? kit.Exists({ path }) : kit.Exists({ path, valueType }),
    and,
    or: (...conditions: ReadonlyArray<C>): C => kit.Or({ conditions: [...conditions] }),
    not: (condition: C): C => kit.Not({ condition }),
    tool,
    toolAction: (toolName: string, action: string): C => and(tool(toolName), equals("action", action))
  }
}

/**
 * The rule builders over a kit: `Rule.decide`, `Rule.keep`, `Rule.all`, `Rule.forTool`,
 * `Rule.named`, … of a face.
 *
 * @since 0.1.0
 * @category constructors
 */
export const rules = <C extends RuleData.Condition, R extends RuleData.Rule>(kit: RuleKit<C, R>) => {
  const { path } = selectors(kit)
  const { tool, toolAction } = conditions(kit)
  const toSelector = (select: string | RuleData.Selector): RuleData.Selector =>
    typeof select === "string" ? path(select) : select
  const decide = (select: string | RuleData.Selector, decision: RuleData.Decision, naming: Naming): R =>
    kit.Decide({ name: naming.name, reason: naming.reason, selector: toSelector(select), decision })
  const when: {
    (condition: C): (self: R) => R
    (self: R, condition: C): R
  } = dual(2, (self: R, condition: C): R => kit.When({ condition, rule: self }))
  return {
    decide,
    omit: (select: string | RuleData.Selector, naming: Naming): R => decide(select, kit.Omit(), naming),
    verbatim: (
      select: string | RuleData.Selector,
      naming: Naming & { readonly limit?: RuleData.VerbatimLimit }
    ): R =>
      decide(select, naming.limit === undefined ? kit.Verbatim({}) : kit.Verbatim({ limit: naming.limit }), naming),
    keep: (select: string | RuleData.Selector, naming: Naming): R => decide(select, kit.Keep(), naming),
    cap: (select: string | RuleData.Selector, max: number, naming: Naming): R =>
      decide(select, kit.Cap({ max }), naming),
    clip: (select: string | RuleData.Selector, max: number, naming: Naming): R =>
      decide(select, kit.Clip({ max }), naming),
    prune: (select: string | RuleData.Selector, naming: Naming): R => decide(select, kit.Prune(), naming),
    bulky: (
      select: string | RuleData.Selector,
      options: Naming & { readonly maxChars: number; readonly elideBinary?: boolean }
    ): R =>
      decide(select, kit.Bulky({ maxChars: options.maxChars, elideBinary: options.elideBinary ?? true }), options),
    all: (...rules: ReadonlyArray<R>): R => kit.All({ rules: [...rules] }),
    first: (...rules: ReadonlyArray<R>): R => kit.First({ rules: [...rules] }),
    when,
    forTool: dual(
      (args) => typeof args[0] === "object",
      (self: R, toolName: string, action?: string): R =>
        when(self, action === undefined ? tool(toolName) : toolAction(toolName, action))
    ) as {
      (tool: string, action?: string): (self: R) => R
      (self: R, tool: string, action?: string): R
    },
    named: dual(2, (self: R, name: string): R => {
      // The core's rules here are the face's: the ones it was given, or built with its kit.
      switch (self._tag) {
        case "Decide":
          return kit.Decide({ name, reason: self.reason, selector: self.selector, decision: self.decision })
        case "All":
          return kit.All({ rules: self.rules as ReadonlyArray<R>, name })
        case "First":
          return kit.First({ rules: self.rules as ReadonlyArray<R>, name })
        case "When":
          return kit.When({ condition: self.condition as C, rule: self.rule as R, name })
      }
    }) as {
      (name: string): (self: R) => R
      (self: R, name: string): R
    }
  }
}

/**
 * What a policy is made of (`Policy.make`'s options): `carry` is empty and the overflow
 * head-and-tail clipping unless given.
 *
 * @since 0.1.0
 * @category models
 */
export interface PolicyOptions<C, R, O> {
  readonly name: string
  readonly description: string
  readonly accepts: C
  readonly rule: R
  readonly carry?: ReadonlyArray<string>
  readonly overflow?: O
}

/**
 * Makes a policy with a face's kit (`Policy.make`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makePolicy = <C extends RuleData.Condition, R extends RuleData.Rule, P extends RuleData.Policy>(
  kit: PolicyKit<C, R, P>,
  options: PolicyOptions<C, R, P["overflow"]>
): P =>
  kit.Policy({
    name: options.name,
    description: options.description,
    accepts: options.accepts,
    rule: options.rule,
    carry: [...(options.carry ?? [])],
    overflow: options.overflow ?? kit.ClipText()
  })
