import { assert, describe, it } from "@effect/vitest"
import { builtInPolicies } from "../../../rules/index.js"
import * as Reduce from "../../../src/Reduce.js"
import * as ViewFit from "../../../src/internal/ViewFit.js"
import * as Transcript from "../../../src/Transcript.js"

describe("ViewFit.reduceToolResult", () => {
  it("a staged approval reduced in the view keeps its record byte for byte but for the path it declares omitted", () => {
    const approval = { id: "approval_0badf00d", kind: "command", title: "Write the key", destructive: false, resume: { tool: "workspace_command", arguments: { command: "tee key.pem", stdin: "hunter2-private-key" } } }
    const envelope = {
      protocol: "agentic-workspace/v1",
      tool: "workspace_command",
      action: "run",
      ok: true,
      summary: "Staged a command for approval",
      data: { status: "pending_approval", mode: "ask", approval, diff: "+ line\n".repeat(20_000) },
      retention: { omit_when_summarizing: ["data.approval.resume.arguments.stdin"] }
    }
    const message = new Transcript.ToolResult({ id: "r0", toolCallId: "c0", name: "workspace_command", content: JSON.stringify(envelope) })
    const reduced = ViewFit.reduceToolResult(message, builtInPolicies, Reduce.minimumCap, "the session's transcript")
    assert.isDefined(reduced)
    assert.notInclude(reduced!.content, "hunter2")
    const { stdin: _, ...kept } = approval.resume.arguments
    assert.include(reduced!.content, JSON.stringify({ ...approval, resume: { ...approval.resume, arguments: kept } }))
  })
})
