/**
 * The built-in retention rules and policies: each module a namespace
 * (`Truncation.keepTruncationCounters`, `ArrayCap.capArrays`), and the two
 * built-in policies with `builtInPolicies`, the list the engine tries in order.
 *
 * @since 0.1.0
 */
import type * as Policy from "../models/Policy.js"
import { agenticWorkspaceV1 } from "./AgenticWorkspaceV1.js"
import { mcpStructuredContent } from "./McpStructuredContent.js"

export {
  /**
   * The agentic-workspace/v1 policy (also `AgenticWorkspaceV1.agenticWorkspaceV1`).
   *
   * @since 0.1.0
   * @category policies
   */
  agenticWorkspaceV1,
  /**
   * The policy for MCP `structuredContent` results (also `McpStructuredContent.mcpStructuredContent`).
   *
   * @since 0.1.0
   * @category policies
   */
  mcpStructuredContent
}

/** @since 0.1.0 */
export * as AgenticWorkspaceV1 from "./AgenticWorkspaceV1.js"
/** @since 0.1.0 */
export * as Approvals from "./Approvals.js"
/** @since 0.1.0 */
export * as ArrayCap from "./ArrayCap.js"
/** @since 0.1.0 */
export * as Bulky from "./Bulky.js"
/** @since 0.1.0 */
export * as Capabilities from "./Capabilities.js"
/** @since 0.1.0 */
export * as Collections from "./Collections.js"
/** @since 0.1.0 */
export * as Identity from "./Identity.js"
/** @since 0.1.0 */
export * as McpStructuredContent from "./McpStructuredContent.js"
/** @since 0.1.0 */
export * as Omissions from "./Omissions.js"
/** @since 0.1.0 */
export * as Plans from "./Plans.js"
/** @since 0.1.0 */
export * as Records from "./Records.js"
/** @since 0.1.0 */
export * as Sources from "./Sources.js"
/** @since 0.1.0 */
export * as Truncation from "./Truncation.js"

/**
 * The built-in policies, in the order they are tried.
 *
 * @since 0.1.0
 * @category policies
 */
export const builtInPolicies: ReadonlyArray<Policy.Policy> = [agenticWorkspaceV1, mcpStructuredContent]
