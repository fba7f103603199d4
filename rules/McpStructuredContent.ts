/**
 * A second, small policy: MCP tool results that carry `structuredContent`.
 * It is what a user's own policy looks like (see docs/rules.md).
 *
 * @since 0.1.0
 */
import * as BuiltInPolicies from "../src/internal/reduce/BuiltInPolicies.js"
import * as Policy from "../src/Policy.js"
import type * as Rule from "../src/Rule.js"

const policy = BuiltInPolicies.mcpStructuredContent(Policy.kit)

/**
 * Keeps `isError`: whether the call failed is never pruned.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepMcpError: Rule.Rule = policy.keepMcpError

/**
 * Prunes the text blocks of `content`: a tool that returns `structuredContent`
 * also serialises it into a text block for older clients, so the text repeats
 * what the structured result says. Images and resources stay (resources keep
 * their `uri`), shrunk by the bulky rule.
 *
 * @since 0.1.0
 * @category rules
 */
export const pruneMcpTextDuplicate: Rule.Rule = policy.pruneMcpTextDuplicate

/**
 * The MCP `structuredContent` policy.
 *
 * @since 0.1.0
 * @category policies
 */
export const mcpStructuredContent: Policy.Policy = policy.mcpStructuredContent
