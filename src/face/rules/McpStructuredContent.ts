/**
 * A second, small policy: MCP tool results that carry `structuredContent`.
 * It is what a user's own policy looks like (see docs/rules.md).
 *
 * @since 0.1.0
 */
import * as BuiltInPolicies from "../models/internal/BuiltInPolicies.js"
import * as Policy from "../models/Policy.js"
import type * as Rule from "../models/Rule.js"

const policy = BuiltInPolicies.mcpStructuredContent

/**
 * Keeps `isError`: whether the call failed is never pruned.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { McpStructuredContent } from "context-compressor/rules"
 *
 * const errorOnly = Policy.make({
 *   name: "mcp-error-only",
 *   description: "whether an MCP call failed, nothing else",
 *   accepts: Condition.exists("structuredContent", "object"),
 *   rule: Rule.all(McpStructuredContent.keepMcpError, Rule.prune("**", { name: "pruneTheRest", reason: "only isError" }))
 * })
 * const result = {
 *   content: [{ type: "text", text: "{\"error\":\"rate limited\"}" }],
 *   structuredContent: { error: "rate limited" },
 *   isError: true
 * }
 * assert.deepStrictEqual(JSON.parse(Reduce.reduce(result, { policies: [errorOnly] }).text), { isError: true })
 * ```
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
 * @example
 * ```ts
 * import { Condition, Policy, Reduce } from "context-compressor"
 * import { McpStructuredContent } from "context-compressor/rules"
 *
 * const withoutDuplicate = Policy.make({
 *   name: "mcp-without-duplicate",
 *   description: "MCP results without the text copy of their structured content",
 *   accepts: Condition.exists("structuredContent", "object"),
 *   rule: McpStructuredContent.pruneMcpTextDuplicate
 * })
 * const forecast = { city: "Lyon", celsius: 21, sky: "clear" }
 * const result = {
 *   content: [
 *     { type: "text", text: JSON.stringify(forecast) },
 *     { type: "resource_link", uri: "weather://lyon/today", name: "today" }
 *   ],
 *   structuredContent: forecast
 * }
 * const reduced = JSON.parse(Reduce.reduce(result, { policies: [withoutDuplicate] }).text)
 * assert.deepStrictEqual(reduced.structuredContent, forecast)
 * assert.ok(!reduced.content.some((block: { readonly text?: string }) => block.text !== undefined))
 * assert.ok(reduced.content.some((block: { readonly uri?: string }) => block.uri === "weather://lyon/today"))
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const pruneMcpTextDuplicate: Rule.Rule = policy.pruneMcpTextDuplicate

/**
 * The MCP `structuredContent` policy.
 *
 * @example
 * ```ts
 * import { Reduce } from "context-compressor"
 * import { builtInPolicies, McpStructuredContent } from "context-compressor/rules"
 *
 * const issues = Array.from({ length: 30 }, (_, n) => ({ id: `ISSUE-${n}`, title: `issue ${n}` }))
 * const result = {
 *   content: [{ type: "text", text: JSON.stringify({ issues }) }],
 *   structuredContent: { issues },
 *   isError: false
 * }
 * const reduction = Reduce.reduce(result, { policies: builtInPolicies })
 * assert.strictEqual(reduction.report.policy, McpStructuredContent.mcpStructuredContent.name)
 * const reduced = JSON.parse(reduction.text)
 * assert.strictEqual(reduced.isError, false)
 * // The structured result stays (its arrays capped), its text copy goes.
 * assert.strictEqual(reduced.structuredContent.issues[0].id, "ISSUE-0")
 * assert.strictEqual(reduced.structuredContent.issuesOmitted, 10)
 * assert.ok(reduction.text.length < JSON.stringify(result).length / 2)
 * ```
 *
 * @since 0.1.0
 * @category policies
 */
export const mcpStructuredContent: Policy.Policy = policy.mcpStructuredContent
