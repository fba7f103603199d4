/**
 * R1.3: capabilities and permission fields.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.capabilities

/**
 * The capability fields of `workspace_inspect { action: "capabilities" }`.
 *
 * @example
 * ```ts
 * import { Capabilities } from "context-compressor/rules"
 *
 * assert.deepStrictEqual(Capabilities.capabilityFields, ["commitEdits", "allowCommands", "allowWeb", "role", "budget"])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const capabilityFields = BuiltInRules.capabilityFields

/**
 * The permission fields of capabilities and overview results.
 *
 * @example
 * ```ts
 * import { Capabilities } from "context-compressor/rules"
 *
 * assert.deepStrictEqual(Capabilities.permissionFields, ["permissionMode", "activePlan", "pendingPlan", "pendingApprovals"])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const permissionFields = BuiltInRules.permissionFields

/**
 * Keeps `commitEdits`, `allowCommands`, `allowWeb`, `role` and the pass and
 * tool-call budget of `workspace_inspect` capabilities: a model that plans
 * around them does not spend a turn on a tool the workspace would refuse.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Capabilities } from "context-compressor/rules"
 *
 * const capabilitiesOnly = Policy.make({
 *   name: "capabilities-only",
 *   description: "the capabilities of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Capabilities.keepCapabilities,
 *     Rule.prune("**", { name: "pruneTheRest", reason: "only the capabilities are shown" })
 *   )
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_inspect",
 *   action: "capabilities",
 *   ok: true,
 *   data: {
 *     capabilities: {
 *       commitEdits: false,
 *       allowCommands: true,
 *       allowWeb: false,
 *       role: "builder",
 *       budget: { passes: 12, toolCalls: 240, toolCallsUsed: 31 },
 *       theme: "dark"
 *     },
 *     tools: [{ name: "workspace_tool_0", description: "doc 0 55b8c7ced545" }]
 *   }
 * }
 * const reduction = Reduce.reduce(result, { policies: [capabilitiesOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), {
 *   data: {
 *     capabilities: {
 *       commitEdits: false,
 *       allowCommands: true,
 *       allowWeb: false,
 *       role: "builder",
 *       budget: { passes: 12, toolCalls: 240, toolCallsUsed: 31 }
 *     }
 *   }
 * })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepCapabilities: Rule.Rule = rules.keepCapabilities

/**
 * Keeps `permissionMode`, `activePlan`, `pendingPlan` and `pendingApprovals`
 * wherever they appear in `data` or `data.capabilities`.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Capabilities } from "context-compressor/rules"
 *
 * const permissionsOnly = Policy.make({
 *   name: "permissions-only",
 *   description: "the permission fields of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Capabilities.keepPermissionFields,
 *     Rule.prune("**", { name: "pruneTheRest", reason: "only the permission fields are shown" })
 *   )
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_inspect",
 *   action: "overview",
 *   ok: true,
 *   data: {
 *     permissionMode: "ask",
 *     activePlan: "plan_64c5d837",
 *     pendingPlan: null,
 *     pendingApprovals: ["approval_964d95b9"],
 *     recentRuns: []
 *   }
 * }
 * const reduction = Reduce.reduce(result, { policies: [permissionsOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), {
 *   data: {
 *     permissionMode: "ask",
 *     activePlan: "plan_64c5d837",
 *     pendingPlan: null,
 *     pendingApprovals: ["approval_964d95b9"]
 *   }
 * })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepPermissionFields: Rule.Rule = rules.keepPermissionFields
