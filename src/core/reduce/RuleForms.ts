/**
 * How the rule algebra is printed and put in normal form, in the shared core (docs/effect4.md).
 * Printing reads the values only. A normal form builds values, and a face's values are its own
 * Schema classes, so normalising takes the face's {@link Kit}: its constructors and its structural
 * equality. Each face gives these functions under its own names (`Rule.format`, `Rule.normalize`,
 * `Condition.normalize`, … on Effect 3), so the laws of the algebra hold the same on both.
 *
 * @since 0.1.0
 */
import type * as RuleData from "./RuleData.js"

/**
 * What a face gives the core to build its conditions with: the constructors a condition's normal
 * form uses, and the face's structural equality of conditions (its Schema's equivalence).
 *
 * @since 0.1.0
 * @category models
 */
export interface ConditionKit {
  readonly always: RuleData.Condition
  readonly and: (conditions: ReadonlyArray<RuleData.Condition>) => RuleData.Condition
  readonly or: (conditions: ReadonlyArray<RuleData.Condition>) => RuleData.Condition
  readonly not: (condition: RuleData.Condition) => RuleData.Condition
  readonly sameCondition: (self: RuleData.Condition, that: RuleData.Condition) => boolean
}

/**
 * What a face gives the core to build its rules with: its {@link ConditionKit}, the constructors a
 * rule's normal form uses, and the face's structural equality of rules.
 *
 * @since 0.1.0
 * @category models
 */
export interface Kit extends ConditionKit {
  readonly all: (rules: ReadonlyArray<RuleData.Rule>) => RuleData.Rule
  readonly first: (rules: ReadonlyArray<RuleData.Rule>) => RuleData.Rule
  readonly when: (condition: RuleData.Condition, rule: RuleData.Rule) => RuleData.Rule
  readonly sameRule: (self: RuleData.Rule, that: RuleData.Rule) => boolean
}

/**
 * Formats a selector the way it is written.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatSelector = (selector: RuleData.Selector): string =>
  selector._tag === "Path"
    ? selector.valueType === undefined ? selector.pattern : `${selector.pattern} (${selector.valueType})`
    : `paths listed at ${selector.at}`

/**
 * Formats a decision as a verb phrase: `cap at 20`, `clip to 300 characters`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatDecision = (decision: RuleData.Decision): string => {
  switch (decision._tag) {
    case "Omit":
      return "omit"
    case "Verbatim":
      return decision.limit === undefined
        ? "carry verbatim"
        : `carry verbatim while ${decision.limit.measure} is at most ${decision.limit.maxChars} characters`
    case "Keep":
      return "keep"
    case "Cap":
      return `cap at ${decision.max}`
    case "Clip":
      return `clip to ${decision.max} characters`
    case "Prune":
      return "prune"
    case "Bulky":
      return `shrink text past ${decision.maxChars} characters${decision.elideBinary ? ", elide binary" : ""}`
  }
}

/**
 * Formats a condition as one line: `tool = "workspace_plan" and action = "propose"`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatCondition = (condition: RuleData.Condition): string => {
  switch (condition._tag) {
    case "Always":
      return "always"
    case "Equals":
      return `${condition.path} = ${JSON.stringify(condition.value)}`
    case "Exists":
      return condition.valueType === undefined
        ? `${condition.path} exists`
        : `${condition.path} is a ${condition.valueType}`
    case "And":
      return condition.conditions.length === 0 ? "always" : condition.conditions.map(formatNested).join(" and ")
    case "Or":
      return condition.conditions.length === 0 ? "never" : condition.conditions.map(formatNested).join(" or ")
    case "Not":
      return `not ${formatNested(condition.condition)}`
  }
}

const formatNested = (condition: RuleData.Condition): string =>
  condition._tag === "And" || condition._tag === "Or" ? `(${formatCondition(condition)})` : formatCondition(condition)

/**
 * Prints a rule as an indented outline, one line per rule.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatRule = (rule: RuleData.Rule): string => {
  const lines: Array<string> = []
  const go = (current: RuleData.Rule, indent: string): void => {
    switch (current._tag) {
      case "Decide":
        lines.push(
          `${indent}${current.name}: ${formatDecision(current.decision)} [${
            formatSelector(current.selector)
          }] — ${current.reason}`
        )
        return
      case "All":
      case "First":
        lines.push(
          `${indent}${current._tag === "All" ? "all" : "first of"}${
            current.name === undefined ? "" : ` ${current.name}`
          }:`
        )
        current.rules.forEach((r) => go(r, indent + "  "))
        return
      case "When":
        lines.push(
          `${indent}when ${formatCondition(current.condition)}${
            current.name === undefined ? "" : ` (${current.name})`
          }:`
        )
        go(current.rule, indent + "  ")
        return
    }
  }
  go(rule, "")
  return lines.join("\n")
}

/**
 * Prints a policy: its name, what it accepts, and its rule as an outline.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatPolicy = (policy: RuleData.Policy): string =>
  [
    `policy ${policy.name}: ${policy.description}`,
    `accepts: ${formatCondition(policy.accepts)}`,
    ...(policy.carry.length > 0 ? [`carries past the cap: ${policy.carry.join(", ")}`] : []),
    `overflow: ${policy.overflow._tag === "RecoveryList" ? "recovery list" : "head-and-tail clipping"}`,
    formatRule(policy.rule)
  ].join("\n")

const isNeverCondition = (condition: RuleData.Condition): boolean =>
  condition._tag === "Or" && condition.conditions.length === 0

/**
 * The normal form of a condition (`Condition.normalize` says what it rewrites), built with the
 * face's kit.
 *
 * @since 0.1.0
 * @category normalizing
 */
export const normalizeCondition = (kit: ConditionKit, condition: RuleData.Condition): RuleData.Condition => {
  const never = kit.or([])
  const distinct = (conditions: ReadonlyArray<RuleData.Condition>): Array<RuleData.Condition> => {
    const out: Array<RuleData.Condition> = []
    for (const condition of conditions) if (!out.some((seen) => kit.sameCondition(seen, condition))) out.push(condition)
    return out
  }
  const go = (condition: RuleData.Condition): RuleData.Condition => {
    switch (condition._tag) {
      case "Always":
      case "Equals":
      case "Exists":
        return condition
      case "And": {
        const operands = distinct(
          condition.conditions.map(go).flatMap((
            c
          ) => (c._tag === "And" ? c.conditions : c._tag === "Always" ? [] : [c]))
        )
        if (operands.some(isNeverCondition)) return never
        return operands.length === 0 ? kit.always : operands.length === 1 ? operands[0]! : kit.and(operands)
      }
      case "Or": {
        const operands = distinct(condition.conditions.map(go).flatMap((c) => (c._tag === "Or" ? c.conditions : [c])))
        if (operands.some((c) => c._tag === "Always")) return kit.always
        return operands.length === 1 ? operands[0]! : kit.or(operands)
      }
      case "Not": {
        const operand = go(condition.condition)
        if (operand._tag === "Not") return operand.condition
        if (operand._tag === "Always") return never
        if (isNeverCondition(operand)) return kit.always
        return kit.not(operand)
      }
    }
  }
  return go(condition)
}

/** Whether a rule applies to every envelope, whatever it holds: a primitive or an `all`. */
const appliesAlways = (rule: RuleData.Rule): boolean => rule._tag === "Decide" || rule._tag === "All"

const isNeverRule = (rule: RuleData.Rule): boolean => rule._tag === "First" && rule.rules.length === 0

const hasPrimitive = (rule: RuleData.Rule): boolean => {
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
 * The normal form of a rule (`Rule.normalize` says what it rewrites), built with the face's kit.
 *
 * @since 0.1.0
 * @category normalizing
 */
export const normalizeRule = (kit: Kit, rule: RuleData.Rule): RuleData.Rule => {
  const go = (rule: RuleData.Rule): RuleData.Rule => {
    switch (rule._tag) {
      case "Decide":
        return rule
      case "All": {
        const members = rule.rules
          .map(go)
          .flatMap((member) => (member._tag === "All" ? member.rules : hasPrimitive(member) ? [member] : []))
        return members.length === 1 && members[0]!._tag === "Decide" ? members[0]! : kit.all(members)
      }
      case "First": {
        const alternatives: Array<RuleData.Rule> = []
        for (const alternative of rule.rules.map(go).flatMap((r) => (r._tag === "First" ? r.rules : [r]))) {
          if (alternatives.some((seen) => kit.sameRule(seen, alternative))) continue
          alternatives.push(alternative)
          if (appliesAlways(alternative)) break
        }
        return alternatives.length === 1 ? alternatives[0]! : kit.first(alternatives)
      }
      case "When": {
        const body = go(rule.rule)
        const condition = body._tag === "When"
          ? normalizeCondition(kit, kit.and([rule.condition, body.condition]))
          : normalizeCondition(kit, rule.condition)
        const inner = body._tag === "When" ? body.rule : body
        if (condition._tag === "Always") return inner
        if ((condition._tag === "Or" && condition.conditions.length === 0) || isNeverRule(inner)) return kit.first([])
        return kit.when(condition, inner)
      }
    }
  }
  return go(rule)
}
