/**
 * A second, small policy: MCP tool results that carry `structuredContent`.
 * It is what a user's own policy looks like (see docs/rules.md).
 *
 * @since 0.1.0
 */
import * as Condition from "../src/Condition.js"
import * as Policy from "../src/Policy.js"
import * as Rule from "../src/Rule.js"
import * as Selector from "../src/Selector.js"
import { capArrays } from "./ArrayCap.js"
import { pruneBulky } from "./Bulky.js"
import { keepIds } from "./Identity.js"
import { keepTruncationCounters, keepTruncationFlags } from "./Truncation.js"

/**
 * Keeps `isError`: whether the call failed is never pruned.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepMcpError: Rule.Rule = Rule.keep(Selector.path("isError", "boolean"), {
  name: "keepMcpError",
  reason: "whether the tool call failed"
})

/**
 * Prunes the text blocks of `content`: a tool that returns `structuredContent`
 * also serialises it into a text block for older clients, so the text repeats
 * what the structured result says. Images and resources stay (resources keep
 * their `uri`), shrunk by the bulky rule.
 *
 * @since 0.1.0
 * @category rules
 */
export const pruneMcpTextDuplicate: Rule.Rule = Rule.all(
  Rule.prune(Selector.path("content.text", "string"), {
    name: "pruneMcpTextDuplicate",
    reason: "the text block repeats structuredContent for older clients"
  }),
  Rule.keep(Selector.path("content.**.uri", "string"), {
    name: "keepMcpResourceUris",
    reason: "a resource's URI is how it is read again"
  })
)

/**
 * The MCP `structuredContent` policy.
 *
 * @since 0.1.0
 * @category policies
 */
export const mcpStructuredContent: Policy.Policy = Policy.make({
  name: "mcp/structuredContent",
  description: "MCP tool results with structuredContent: keep the structured result, drop its text duplicate",
  accepts: Condition.exists("structuredContent", "object"),
  rule: Rule.named(
    Rule.all(
      keepMcpError,
      pruneMcpTextDuplicate,
      keepIds,
      keepTruncationFlags,
      keepTruncationCounters,
      capArrays,
      pruneBulky
    ),
    "mcp/structuredContent"
  )
})
