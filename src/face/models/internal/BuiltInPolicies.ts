/**
 * The built-in policies (agentic-workspace/v1, MCP `structuredContent`), built with the face's
 * constructors from the rules of `BuiltInRules`: `src/face/rules/AgenticWorkspaceV1.ts` and
 * `src/face/rules/McpStructuredContent.ts` give them with their documentation.
 *
 * @since 0.1.0
 */
import * as EnvelopeData from "../../../core/reduce/EnvelopeData.js"
import { and, equals, exists } from "../Condition.js"
import * as Policy from "../Policy.js"
import { all, keep, named, prune } from "../Rule.js"
import { path } from "../Selector.js"
import * as BuiltInRules from "./BuiltInRules.js"

const { omitDeclared } = BuiltInRules.omissions
const { carryResumeVerbatim, keepStagedApproval } = BuiltInRules.approvals
const { capArrays, pruneBulky } = BuiltInRules.generic
const { keepCapabilities, keepPermissionFields } = BuiltInRules.capabilities
const { keepRecentCollections, keepResearchWrappers } = BuiltInRules.collections
const { keepHeader, keepIds, keepRetention } = BuiltInRules.identity
const { keepPlans } = BuiltInRules.plans
const { keepChangesIndex, keepJobRecords, keepTransactionRecords } = BuiltInRules.records
const { keepSourcesNotSnippets } = BuiltInRules.sources
const { keepTruncationCounters, keepTruncationFlags } = BuiltInRules.truncation

const agenticWorkspaceV1Rule = named(
  all(
    omitDeclared,
    carryResumeVerbatim,
    keepStagedApproval,
    keepHeader,
    keepRetention,
    keepTruncationFlags,
    keepTruncationCounters,
    keepIds,
    keepCapabilities,
    keepPermissionFields,
    keepRecentCollections,
    keepResearchWrappers,
    keepPlans,
    keepChangesIndex,
    keepJobRecords,
    keepTransactionRecords,
    keepSourcesNotSnippets,
    capArrays,
    pruneBulky
  ),
  "agentic-workspace/v1"
)
const call = (
  tool: string,
  action: string,
  extra: Partial<{ forEach: string; idArgument: string; onlyIf: string }> = {}
) => new Policy.RecoveryCall({ tool, arguments: { action }, ...extra })
const recoveryCalls: ReadonlyArray<Policy.RecoveryCall> = [
  call("workspace_inspect", "changes"),
  call("workspace_plan", "current", { onlyIf: "plan_" }),
  call("workspace_plan", "show", { forEach: "plan_", idArgument: "plan_id" }),
  call("workspace_edit", "show", { forEach: "tx_", idArgument: "transaction_id" }),
  call("workspace_command", "status", { forEach: "job_", idArgument: "job_id" }),
  call("workspace_tasks", "show", { forEach: "todo_", idArgument: "board_id" }),
  call("workspace_tasks", "next", { forEach: "todo_", idArgument: "board_id" }),
  call("workspace_research", "show", { forEach: "research_", idArgument: "research_id" }),
  call("workspace_agent", "status", { forEach: "run_", idArgument: "run_id" })
]
const agenticWorkspaceV1Policy = Policy.make({
  name: "agentic-workspace/v1",
  description: "protocol-aware reduction of agentic-workspace/v1 tool results",
  accepts: and(
    equals("protocol", EnvelopeData.protocol),
    exists("tool", "string"),
    exists("action", "string")
  ),
  rule: agenticWorkspaceV1Rule,
  carry: ["data.approval"],
  overflow: new Policy.RecoveryList({
    header: ["protocol", "tool", "action", "ok", "summary", "data.status", "data.mode", "retention.importance"],
    idPrefixes: [...BuiltInRules.idPrefixes],
    calls: [...recoveryCalls],
    preserve: [
      new Policy.Preserved({ pattern: "**.truncated", valueType: "boolean" }),
      new Policy.Preserved({ pattern: "**.*Truncated", valueType: "boolean" }),
      ...BuiltInRules.counterSuffixes.map((suffix) =>
        new Policy.Preserved({ pattern: `**.*${suffix}`, valueType: "number" })
      )
    ],
    facts: "retention.facts",
    essentials: [
      "data.permissionMode",
      "data.activePlan",
      "data.pendingPlan",
      "data.pendingApprovals",
      "data.capabilities",
      "data.job",
      "data.plan",
      "data.propose",
      "data.project",
      "data.agentRun"
    ]
  })
})

/**
 * The agentic-workspace/v1 policy (SPEC R1): every built-in rule of the protocol composed, the
 * staged approval carried past the cap, and the recovery list of R1.7 with the calls of R1.8.
 *
 * @since 0.1.0
 * @category policies
 */
export const agenticWorkspaceV1 = {
  agenticWorkspaceV1Rule,
  recoveryCalls,
  agenticWorkspaceV1: agenticWorkspaceV1Policy
}

const keepMcpError = keep(path("isError", "boolean"), {
  name: "keepMcpError",
  reason: "whether the tool call failed"
})
const pruneMcpTextDuplicate = all(
  prune(path("content.text", "string"), {
    name: "pruneMcpTextDuplicate",
    reason: "the text block repeats structuredContent for older clients"
  }),
  keep(path("content.**.uri", "string"), {
    name: "keepMcpResourceUris",
    reason: "a resource's URI is how it is read again"
  })
)
const mcpStructuredContentPolicy = Policy.make({
  name: "mcp/structuredContent",
  description: "MCP tool results with structuredContent: keep the structured result, drop its text duplicate",
  accepts: exists("structuredContent", "object"),
  rule: named(
    all(
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

/**
 * The MCP `structuredContent` policy: what a user's own policy looks like (docs/rules.md).
 *
 * @since 0.1.0
 * @category policies
 */
export const mcpStructuredContent = {
  keepMcpError,
  pruneMcpTextDuplicate,
  mcpStructuredContent: mcpStructuredContentPolicy
}
