/**
 * R1.5: plans.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.plans

/**
 * The fields of a plan record that are kept.
 *
 * @example
 * ```ts
 * import { Plans } from "context-compressor/rules"
 *
 * assert.deepStrictEqual(Plans.planFields, ["id", "status", "revision", "supersedes", "planPath"])
 * ```
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
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Plans } from "context-compressor/rules"
 *
 * const plansOnly = Policy.make({
 *   name: "plans-only",
 *   description: "the plan records of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(Plans.keepPlans, Rule.prune("**", { name: "pruneTheRest", reason: "only the plan is shown" }))
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_plan",
 *   action: "propose",
 *   ok: true,
 *   data: {
 *     plan: {
 *       id: "plan_64c5d837",
 *       status: "proposed",
 *       revision: 3,
 *       supersedes: "plan_121ec31d",
 *       planPath: ".workspace/plans/current.md",
 *       steps: [{ n: 1, text: "do 0 25756566775d" }]
 *     },
 *     propose: "workspace_plan { action: \"accept\", plan_id: \"plan_64c5d837\" }"
 *   }
 * }
 * const reduction = Reduce.reduce(result, { policies: [plansOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), {
 *   data: {
 *     plan: {
 *       id: "plan_64c5d837",
 *       status: "proposed",
 *       revision: 3,
 *       supersedes: "plan_121ec31d",
 *       planPath: ".workspace/plans/current.md"
 *     },
 *     propose: "workspace_plan { action: \"accept\", plan_id: \"plan_64c5d837\" }"
 *   }
 * })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepPlans: Rule.Rule = rules.keepPlans
