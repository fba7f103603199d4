/**
 * The built-in retention rules and policies.
 *
 * @since 0.1.0
 */
import type * as Policy from "../src/Policy.js"
import { agenticWorkspaceV1 } from "./AgenticWorkspaceV1.js"
import { mcpStructuredContent } from "./McpStructuredContent.js"

export * from "./AgenticWorkspaceV1.js"
export * from "./Approvals.js"
export * from "./ArrayCap.js"
export * from "./Bulky.js"
export * from "./Capabilities.js"
export * from "./Collections.js"
export * from "./Identity.js"
export * from "./McpStructuredContent.js"
export * from "./Omissions.js"
export * from "./Plans.js"
export * from "./Records.js"
export * from "./Sources.js"
export * from "./Truncation.js"

/**
 * The built-in policies, in the order they are tried.
 *
 * @since 0.1.0
 * @category policies
 */
export const builtInPolicies: ReadonlyArray<Policy.Policy> = [agenticWorkspaceV1, mcpStructuredContent]
