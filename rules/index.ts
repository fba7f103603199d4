/**
 * The built-in retention rules and policies.
 *
 * @since 0.1.0
 */
import type * as Policy from "../src/Policy.js"
import { agenticWorkspaceV1 } from "./AgenticWorkspaceV1.js"
import { mcpStructuredContent } from "./McpStructuredContent.js"

/**
 * Everything `rules/AgenticWorkspaceV1.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./AgenticWorkspaceV1.js"
/**
 * Everything `rules/Approvals.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Approvals.js"
/**
 * Everything `rules/ArrayCap.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./ArrayCap.js"
/**
 * Everything `rules/Bulky.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Bulky.js"
/**
 * Everything `rules/Capabilities.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Capabilities.js"
/**
 * Everything `rules/Collections.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Collections.js"
/**
 * Everything `rules/Identity.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Identity.js"
/**
 * Everything `rules/McpStructuredContent.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./McpStructuredContent.js"
/**
 * Everything `rules/Omissions.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Omissions.js"
/**
 * Everything `rules/Plans.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Plans.js"
/**
 * Everything `rules/Records.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Records.js"
/**
 * Everything `rules/Sources.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Sources.js"
/**
 * Everything `rules/Truncation.ts` exports.
 *
 * @since 0.1.0
 */
export * from "./Truncation.js"

/**
 * The built-in policies, in the order they are tried.
 *
 * @since 0.1.0
 * @category policies
 */
export const builtInPolicies: ReadonlyArray<Policy.Policy> = [agenticWorkspaceV1, mcpStructuredContent]
