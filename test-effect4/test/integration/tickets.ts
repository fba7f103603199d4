// docs/integration.md, "Effect 4": tickets.ts, as the page shows it (its imports of the package
// written as paths here; test/integration.test.ts holds the page to this file).
import { Policy, Rule } from "../../../src/effect4/index.js"
import { agenticWorkspaceV1 } from "../../../src/effect4/rules/index.js"

/** A task board's notes are re-read from the ticket: they need not stay in the history. */
export const dropNotes = Rule.omit("data.notes", { name: "dropNotes", reason: "notes are re-read from the ticket" })

/** agentic-workspace/v1 with our rule beside it, for the task tool's results. */
export const tickets = Policy.make({
  name: "tickets+workspace",
  description: "agentic-workspace/v1 and a rule of our own",
  accepts: agenticWorkspaceV1.accepts,
  rule: Rule.all(agenticWorkspaceV1.rule, Rule.forTool(dropNotes, "workspace_tasks")),
  carry: agenticWorkspaceV1.carry,
  overflow: agenticWorkspaceV1.overflow
})
