/**
 * R1.3: capabilities and permission fields.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"

/**
 * The capability fields of `workspace_inspect { action: "capabilities" }`.
 *
 * @since 0.1.0
 * @category constants
 */
export const capabilityFields = ["commitEdits", "allowCommands", "allowWeb", "role", "budget"] as const

/**
 * The permission fields of capabilities and overview results.
 *
 * @since 0.1.0
 * @category constants
 */
export const permissionFields = ["permissionMode", "activePlan", "pendingPlan", "pendingApprovals"] as const

/**
 * Keeps `commitEdits`, `allowCommands`, `allowWeb`, `role` and the pass and
 * tool-call budget of `workspace_inspect` capabilities: a model that plans
 * around them does not spend a turn on a tool the workspace would refuse.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepCapabilities: Rule.Rule = Rule.forTool(
  Rule.all(
    ...capabilityFields.map((field) =>
      Rule.keep(`data.capabilities.${field}`, {
        name: "keepCapabilities",
        reason: "the workspace's capabilities decide which tools the model may plan around"
      })
    )
  ),
  "workspace_inspect"
)

/**
 * Keeps `permissionMode`, `activePlan`, `pendingPlan` and `pendingApprovals`
 * wherever they appear in `data` or `data.capabilities`.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepPermissionFields: Rule.Rule = Rule.all(
  ...permissionFields.flatMap((field) =>
    [`data.${field}`, `data.capabilities.${field}`].map((path) =>
      Rule.keep(path, {
        name: "keepPermissionFields",
        reason: "the permission mode and pending plans and approvals gate what the model may do next"
      })
    )
  )
)
