/**
 * The envelope's header, retention block and ids: what names the state.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.identity

/**
 * Keeps the header (`protocol`, `tool`, `action`, `ok`): what makes the
 * result an envelope.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Identity } from "context-compressor/rules"
 *
 * // Next to a rule that prunes everything, only what keepHeader keeps is left.
 * const headerOnly = Policy.make({
 *   name: "header-only",
 *   description: "the header of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(Identity.keepHeader, Rule.prune("**", { name: "pruneTheRest", reason: "only the header is shown" }))
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true,
 *   summary: "workspace_command status completed",
 *   data: { job: { id: "job_1aecb197", status: "exited" } }
 * }
 * const reduction = Reduce.reduce(result, { policies: [headerOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true
 * })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepHeader: Rule.Rule = rules.keepHeader

/**
 * Keeps `retention.importance`, `retention.facts` (R1.3) and the omit list
 * itself, so reducing the output again omits the same paths.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Identity } from "context-compressor/rules"
 *
 * const retentionOnly = Policy.make({
 *   name: "retention-only",
 *   description: "the retention block of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(Identity.keepRetention, Rule.prune("**", { name: "pruneTheRest", reason: "only the retention is shown" }))
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_plan",
 *   action: "propose",
 *   ok: true,
 *   data: { plan: { id: "plan_64c5d837" }, markdown: "# Plan\n…" },
 *   retention: {
 *     importance: "high",
 *     facts: ["plan_64c5d837 awaits the user's acceptance"],
 *     omit_when_summarizing: ["data.markdown"],
 *     note: "not one of the kept fields"
 *   }
 * }
 * const reduction = Reduce.reduce(result, { policies: [retentionOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text).retention, {
 *   importance: "high",
 *   facts: ["plan_64c5d837 awaits the user's acceptance"],
 *   omit_when_summarizing: ["data.markdown"]
 * })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepRetention: Rule.Rule = rules.keepRetention

/**
 * Keeps every string `id`, at any depth: even where the rest of an entry is
 * pruned, its id lets the agent re-read it.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Identity } from "context-compressor/rules"
 *
 * const idsOnly = Policy.make({
 *   name: "ids-only",
 *   description: "the ids of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(Identity.keepIds, Rule.prune("**", { name: "pruneTheRest", reason: "only the ids are shown" }))
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_tasks",
 *   action: "show",
 *   ok: true,
 *   data: {
 *     board: {
 *       id: "todo_3e1c20bb",
 *       title: "ship release",
 *       items: [{ id: "todo_3e1c20bb.0", text: "task 0", status: "done" }]
 *     }
 *   }
 * }
 * const reduction = Reduce.reduce(result, { policies: [idsOnly] })
 * // Every string `id`, at any depth, inside arrays too.
 * assert.deepStrictEqual(JSON.parse(reduction.text), {
 *   data: { board: { id: "todo_3e1c20bb", items: [{ id: "todo_3e1c20bb.0" }] } }
 * })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepIds: Rule.Rule = rules.keepIds
