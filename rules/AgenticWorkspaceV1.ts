/**
 * The built-in policy for agentic-workspace/v1 tool results (SPEC R1).
 *
 * @since 0.1.0
 */
import * as Condition from "../src/Condition.js"
import * as Envelope from "../src/Envelope.js"
import * as Policy from "../src/Policy.js"
import * as Rule from "../src/Rule.js"
import { carryResumeVerbatim, keepStagedApproval } from "./Approvals.js"
import { capArrays } from "./ArrayCap.js"
import { pruneBulky } from "./Bulky.js"
import { keepCapabilities, keepPermissionFields } from "./Capabilities.js"
import { keepRecentCollections, keepResearchWrappers } from "./Collections.js"
import { keepHeader, keepIds, keepRetention } from "./Identity.js"
import { omitDeclared } from "./Omissions.js"
import { keepPlans } from "./Plans.js"
import { keepChangesIndex, keepJobRecords, keepTransactionRecords } from "./Records.js"
import { keepSourcesNotSnippets } from "./Sources.js"
import { counterSuffixes } from "./Truncation.js"
import { keepTruncationCounters, keepTruncationFlags } from "./Truncation.js"

/**
 * Every built-in rule of the protocol, composed. Precedence does the rest:
 * declared omissions first, the verbatim resume, then what is kept, then the
 * array cap and bulky pruning for everything else.
 *
 * @since 0.1.0
 * @category rules
 */
export const agenticWorkspaceV1Rule: Rule.Rule = Rule.named(
  Rule.all(
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

/**
 * The recovery calls of R1.8, filled with the envelope's ids when the reduced
 * envelope does not fit the cap.
 *
 * @since 0.1.0
 * @category constants
 */
export const recoveryCalls: ReadonlyArray<Policy.RecoveryCall> = [
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

/**
 * The agentic-workspace/v1 policy: accepts envelopes of that protocol, reduces
 * them with {@link agenticWorkspaceV1Rule}, carries the staged approval past
 * the cap, and falls back to the recovery list of R1.7 when the reduced
 * envelope still does not fit.
 *
 * @since 0.1.0
 * @category policies
 */
export const agenticWorkspaceV1: Policy.Policy = Policy.make({
  name: "agentic-workspace/v1",
  description: "protocol-aware reduction of agentic-workspace/v1 tool results",
  accepts: Condition.and(
    Condition.equals("protocol", Envelope.protocol),
    Condition.exists("tool", "string"),
    Condition.exists("action", "string")
  ),
  rule: agenticWorkspaceV1Rule,
  carry: ["data.approval"],
  overflow: new Policy.RecoveryList({
    header: ["protocol", "tool", "action", "ok", "summary", "data.status", "data.mode", "retention.importance"],
    idPrefixes: [...Envelope.idPrefixes],
    calls: [...recoveryCalls],
    preserve: [
      new Policy.Preserved({ pattern: "**.truncated", valueType: "boolean" }),
      new Policy.Preserved({ pattern: "**.*Truncated", valueType: "boolean" }),
      ...counterSuffixes.map((suffix) => new Policy.Preserved({ pattern: `**.*${suffix}`, valueType: "number" }))
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
