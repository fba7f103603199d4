/**
 * How the rule algebra is printed, in the shared core: printing reads the values only.
 * `Selector`, `Decision`, `Condition`, `Rule` and `Policy` give these functions under their names
 * (`Rule.format`, …).
 *
 * @since 0.1.0
 */
import type * as RuleData from "./RuleData.js"

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
