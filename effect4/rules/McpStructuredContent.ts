/**
 * A second, small policy: MCP tool results that carry `structuredContent`. On Effect 4: the shared core's `mcpStructuredContent` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `McpStructuredContent`.
 *
 * @since 0.1.0
 */
import * as BuiltInPolicies from "../../src/internal/reduce/BuiltInPolicies.js"
import * as Policy from "../src/Policy.js"
import type * as Rule from "../src/Rule.js"

const built = BuiltInPolicies.mcpStructuredContent(Policy.kit)

/** @since 0.1.0 */
export const keepMcpError: Rule.Rule = built.keepMcpError

/** @since 0.1.0 */
export const pruneMcpTextDuplicate: Rule.Rule = built.pruneMcpTextDuplicate

/** @since 0.1.0 */
export const mcpStructuredContent: Policy.Policy = built.mcpStructuredContent
