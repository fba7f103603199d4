/**
 * The built-in policies (agentic-workspace/v1, MCP `structuredContent`), written once in the
 * shared core (docs/effect4.md) over a face's constructor kit from the rules of `BuiltInRules`:
 * `src/face/rules/AgenticWorkspaceV1.ts` and `src/face/rules/McpStructuredContent.ts` of a face are these functions
 * applied to its kit.
 *
 * @since 0.1.0
 */
import * as Builders from "./Builders.js"
import * as BuiltInRules from "./BuiltInRules.js"
import * as EnvelopeData from "./EnvelopeData.js"
import type * as RuleData from "./RuleData.js"

/**
 * The agentic-workspace/v1 policy (SPEC R1): every built-in rule of the protocol composed, the
 * staged approval carried past the cap, and the recovery list of R1.7 with the calls of R1.8.
 *
 * @since 0.1.0
 * @category policies
 */
export const agenticWorkspaceV1 = <C extends RuleData.Condition, R extends RuleData.Rule, P extends RuleData.Policy>(
  kit: Builders.PolicyKit<C, R, P>
) => {
  const { and, equals, exists } = Builders.conditions(kit)
  const { all, named } = Builders.rules(kit)
  const { omitDeclared } = BuiltInRules.omissions(kit)
  const { carryResumeVerbatim, keepStagedApproval } = BuiltInRules.approvals(kit)
  const { capArrays, pruneBulky } = BuiltInRules.generic(kit)
  const { keepCapabilities, keepPermissionFields } = BuiltInRules.capabilities(kit)
  const { keepRecentCollections, keepResearchWrappers } = BuiltInRules.collections(kit)
  const { keepHeader, keepIds, keepRetention } = BuiltInRules.identity(kit)
  const { keepPlans } = BuiltInRules.plans(kit)
  const { keepChangesIndex, keepJobRecords, keepTransactionRecords } = BuiltInRules.records(kit)
  const { keepSourcesNotSnippets } = BuiltInRules.sources(kit)
  const { keepTruncationCounters, keepTruncationFlags } = BuiltInRules.truncation(kit)
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
  ) => kit.RecoveryCall({ tool, arguments: { action }, ...extra })
  const recoveryCalls: ReadonlyArray<RuleData.RecoveryCall> = [
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
  const agenticWorkspaceV1 = Builders.makePolicy(kit, {
    name: "agentic-workspace/v1",
    description: "protocol-aware reduction of agentic-workspace/v1 tool results",
    accepts: and(
      equals("protocol", EnvelopeData.protocol),
      exists("tool", "string"),
      exists("action", "string")
    ),
    rule: agenticWorkspaceV1Rule,
    carry: ["data.approval"],
    overflow: kit.RecoveryList({
      header: ["protocol", "tool", "action", "ok", "summary", "data.status", "data.mode", "retention.importance"],
      idPrefixes: [...BuiltInRules.idPrefixes],
      calls: [...recoveryCalls],
      preserve: [
        kit.Preserved({ pattern: "**.truncated", valueType: "boolean" }),
        kit.Preserved({ pattern: "**.*Truncated", valueType: "boolean" }),
        ...BuiltInRules.counterSuffixes.map((suffix) =>
          kit.Preserved({ pattern: `**.*${suffix}`, valueType: "number" })
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
  return { agenticWorkspaceV1Rule, recoveryCalls, agenticWorkspaceV1 }
}

/**
 * The MCP `structuredContent` policy: what a user's own policy looks like (docs/rules.md).
 *
 * @since 0.1.0
 * @category policies
 */
export const mcpStructuredContent = <C extends RuleData.Condition, R extends RuleData.Rule, P extends RuleData.Policy>(
  kit: Builders.PolicyKit<C, R, P>
) => {
  const { exists } = Builders.conditions(kit)
  const { path } = Builders.selectors(kit)
  const { all, keep, named, prune } = Builders.rules(kit)
  const { capArrays, pruneBulky } = BuiltInRules.generic(kit)
  const { keepIds } = BuiltInRules.identity(kit)
  const { keepTruncationCounters, keepTruncationFlags } = BuiltInRules.truncation(kit)
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
  const mcpStructuredContent = Builders.makePolicy(kit, {
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
  return { keepMcpError, pruneMcpTextDuplicate, mcpStructuredContent }
}
