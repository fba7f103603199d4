/**
 * R1.3: capabilities and permission fields.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.capabilities(Rule.kit)

/**
 * The capability fields of `workspace_inspect { action: "capabilities" }`.
 *
 * @since 0.1.0
 * @category constants
 */
export const capabilityFields = BuiltInRules.capabilityFields

/**
 * The permission fields of capabilities and overview results.
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
 * @since 0.1.0
 * @category rules
 */
export const keepCapabilities: Rule.Rule = rules.keepCapabilities

/**
 * Keeps `permissionMode`, `activePlan`, `pendingPlan` and `pendingApprovals`
 * wherever they appear in `data` or `data.capabilities`.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepPermissionFields: Rule.Rule = rules.keepPermissionFields
