/**
 * R1.5: plans.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.plans(Rule.kit)

/**
 * The fields of a plan record that are kept.
 *
 * @since 0.1.0
 * @category constants
 */
export const planFields = BuiltInRules.planFields

/**
 * Keeps a plan's `plan_*` id, status, revision, supersedes and planPath, and
 * the propose instruction (`data.propose`). A declared omission of
 * `data.plan.steps` or `data.markdown` still wins.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepPlans: Rule.Rule = rules.keepPlans
