import { assert, describe, it } from "@effect/vitest"
import * as ViewFit from "../../../../src/core/checkpoint/ViewFit.js"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"

describe("ViewFit.reduceToolResult", () => {
  it("a staged approval reduced in the view keeps its record byte for byte but for the path it declares omitted", () => {
    const approval = {
      id: "approval_0badf00d",
      kind: "command",
      title: "Write the key",
      destructive: false,
      resume: { tool: "workspace_command", arguments: { command: "tee key.pem", stdin: "hunter2-private-key" } }
    }
    const envelope = {
      protocol: "agentic-workspace/v1",
      tool: "workspace_command",
      action: "run",
      ok: true,
      summary: "Staged a command for approval",
      data: { status: "pending_approval", mode: "ask", approval, diff: "+ line\n".repeat(20_000) },
      retention: { omit_when_summarizing: ["data.approval.resume.arguments.stdin"] }
    }
    const message = new Transcript.ToolResult({
      id: "r0",
      toolCallId: "c0",
      name: "workspace_command",
      content: JSON.stringify(envelope)
    })
    const reduced = ViewFit.reduceToolResult(message, builtInPolicies, Reduce.minimumCap, "the session's transcript")
    assert.isDefined(reduced)
    assert.notInclude(reduced!.content, "hunter2")
    const { stdin: _, ...kept } = approval.resume.arguments
    assert.include(reduced!.content, JSON.stringify({ ...approval, resume: { ...approval.resume, arguments: kept } }))
  })
})

describe("ViewFit.fit: the ladder's order", () => {
  const tokens = (message: Transcript.Message) => Math.ceil(Transcript.text(message).length / 4) + 4
  const options = (budget: number): ViewFit.Options => ({
    budget,
    tokens,
    policies: builtInPolicies,
    capChars: 20_000,
    whereWhole: (message) => `the session's transcript (message ${message.id})`,
    whereBlock: "the session's transcript"
  })
  const block = new Transcript.CompactedBlock({
    id: "block",
    content: `## First user message\nplease fix the cache\n## Summary of the compacted span\n${
      "the work so far went through the parser and its cache. ".repeat(150)
    }`,
    firstReplacedId: "m1",
    lastReplacedId: "m9"
  })
  const viewWith = (newest: string): Transcript.Transcript => [
    new Transcript.SystemMessage({ id: "s", content: "You are a coding agent." }),
    block,
    new Transcript.UserMessage({ id: "u1", content: "go on" }),
    new Transcript.AssistantMessage({
      id: "a1",
      content: "",
      toolCalls: [new Transcript.ToolCall({ id: "c1", name: "bash", arguments: "{\"command\":\"cat big.txt\"}" })]
    }),
    new Transcript.ToolResult({ id: "t1", toolCallId: "c1", name: "bash", content: "older output line\n".repeat(170) }),
    new Transcript.AssistantMessage({
      id: "a2",
      content: "",
      toolCalls: [new Transcript.ToolCall({ id: "c2", name: "bash", arguments: "{\"command\":\"make check\"}" })]
    }),
    new Transcript.ToolResult({ id: "t2", toolCallId: "c2", name: "bash", content: newest })
  ]
  const total = (view: Transcript.Transcript) => view.reduce((sum, m) => sum + tokens(m), 0)

  for (const length of [2_019, 823]) {
    it(`a ${length}-character newest message stays whole while older messages and the block give way`, () => {
      const newest = "newest result line\n".repeat(200).slice(0, length)
      const view = viewWith(newest)
      // More than the older result alone can give: the block must give too.
      const fitted = ViewFit.fit(view, options(total(view) - 1_200))
      assert.isAtMost(fitted.tokens, total(view) - 1_200)
      assert.strictEqual(fitted.view[fitted.view.length - 1]!.content, newest)
      assert.deepStrictEqual(fitted.steps.map((step) => step.step), ["clip-messages", "clip-block"])
      assert.deepStrictEqual(fitted.steps[0]!.messageIds, ["t1"])
    })
  }

  it("a window that cannot hold the rest clips the newest message last, keeping its head of 2,000 characters while that is enough", () => {
    const newest = "newest result line\n".repeat(600)
    const view = viewWith(newest)
    const fitted = ViewFit.fit(view, options(total(view) - 3_500))
    const last = fitted.view[fitted.view.length - 1]!
    assert.notStrictEqual(last.content, newest)
    assert.isAtLeast(last.content.length, ViewFit.newestHeadChars - 1)
    assert.isTrue(last.content.startsWith(newest.slice(0, 500)))
    assert.deepStrictEqual(fitted.steps.map((step) => step.step), ["clip-messages", "clip-block", "clip-messages"])
  })
})
