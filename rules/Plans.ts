/**
 * R1.5: plans.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"

/**
 * The fields of a plan record that are kept.
 *
 * @since 0.1.0
 * @category constants
 */
export const planFields = ["id", "status", "revision", "supersedes", "planPath"] as const

/**
 * Keeps a plan's `plan_*` id, status, revision, supersedes and planPath, and
 * the propose instruction (`data.propose`). A declared omission of
 * `data.plan.steps` or `data.markdown` still wins.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepPlans: Rule.Rule = Rule.all(
  ...[...planFields.map((field) => `data.plan.${field}`), "data.propose"].map((path) =>
    Rule.keep(path, {
      name: "keepPlans",
      reason: "the plan's id, status and revision, and the call that accepts it, are what the model acts on"
    })
  )
)
