/**
 * R1.2: declared omissions.
 *
 * @since 0.1.0
 */
import * as Reduce from "../engine/Reduce.js"
import type * as Rule from "../models/Rule.js"

/**
 * Removes every path the envelope lists in `retention.omit_when_summarizing`,
 * over every other rule, the staged approval included. The list only grants
 * omission: its paths are literal (no globs), resolve against the envelope's
 * own keys, and may not name the header or the retention block. The core's
 * rule (`Reduce.omitDeclared`), which the working state and the offline
 * summariser apply as well.
 *
 * @example
 * ```ts
 * import { Reduce } from "context-compressor"
 * import { builtInPolicies } from "context-compressor/rules"
 *
 * const proposal = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_plan",
 *   action: "propose",
 *   ok: true,
 *   data: {
 *     plan: { id: "plan_64c5d837", status: "proposed", steps: [{ n: 1, text: "do 0 25756566775d" }] },
 *     markdown: "# Plan\n1. do 0"
 *   },
 *   retention: { importance: "high", omit_when_summarizing: ["data.markdown", "data.plan.steps"] }
 * }
 * const reduced = JSON.parse(Reduce.reduce(proposal, { policies: builtInPolicies }).text)
 * // The declared paths are gone, even where another rule of the policy would keep them.
 * assert.strictEqual(reduced.data.markdown, undefined)
 * assert.strictEqual(reduced.data.plan.steps, undefined)
 * assert.strictEqual(reduced.data.plan.id, "plan_64c5d837")
 * // The list itself stays, so reducing the output again omits the same paths.
 * assert.deepStrictEqual(reduced.retention.omit_when_summarizing, ["data.markdown", "data.plan.steps"])
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const omitDeclared: Rule.Rule = Reduce.omitDeclared
