import { assert, describe, it } from "@effect/vitest"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import * as Envelope from "../../../../src/face/models/Envelope.js"
import * as Approvals from "../../../../src/face/rules/Approvals.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"

const reduce = (input: unknown, cap = 32_000) =>
  Reduce.reduce(JSON.stringify(input), { policies: builtInPolicies, cap })

const staged = (args: Record<string, unknown>, omit: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
  protocol: "agentic-workspace/v1",
  tool: "workspace_command",
  action: "run",
  ok: true,
  summary: "staged a command for approval",
  data: {
    status: "pending_approval",
    mode: "ask",
    approval: {
      id: "approval_7c1e",
      kind: "command",
      title: "run the migration",
      destructive: true,
      resume: { tool: "workspace_command", arguments: args }
    },
    ...extra
  },
  retention: { importance: "high", facts: ["approval_7c1e pending"], omit_when_summarizing: omit }
})

type Output = { data: { approval: { resume: Record<string, unknown> } } }

describe("Approvals: declared omissions win inside the carried resume (SPEC R1.2, R1.11)", () => {
  const args = { action: "run", executable: "psql", argv: ["-f", "migrate.sql"], stdin: "SECRET-STDIN-PAYLOAD" }
  const omit = ["data.approval.resume.arguments.stdin"]

  it("on the envelope route: the declared path is gone, the rest of the resume is byte for byte", () => {
    const result = reduce(staged(args, omit))
    assert.strictEqual(result.report.route, "envelope")
    assert.notInclude(result.text, "SECRET-STDIN-PAYLOAD")
    const { stdin: _, ...rest } = args
    assert.strictEqual(
      JSON.stringify((result.value as Output).data.approval.resume),
      JSON.stringify({ tool: "workspace_command", arguments: rest })
    )
  })

  it("the report says which rule removed what, that the carry made an exception, and a note names the path", () => {
    const report = reduce(staged(args, omit)).report
    const omitted = report.rules.find((rule) => rule.rule === "omitDeclared")
    assert.deepStrictEqual(omitted?.entries, [{ action: "omitted", path: "data.approval.resume.arguments.stdin" }])
    const carried = report.rules.find((rule) => rule.rule === "carryResumeVerbatim")
    assert.strictEqual(carried?.entries[0]?.detail, "carried byte for byte except 1 declared omission inside it")
    assert.isTrue(
      report.notes.some((note) =>
        note.startsWith("data.approval is carried without the path") &&
        note.endsWith("data.approval.resume.arguments.stdin")
      )
    )
  })

  it("on the overflow route: the carried approval is the omission-stripped one", () => {
    const bulk = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`file${i}`, "x".repeat(900)]))
    const result = reduce(staged(args, omit, { bulk }), Reduce.minimumCap)
    assert.strictEqual(result.report.route, "overflow")
    assert.notInclude(result.text, "SECRET-STDIN-PAYLOAD")
    assert.strictEqual((result.value as Output).data.approval.resume["tool"], "workspace_command")
    assert.isTrue(result.report.notes.some((note) => note.includes("data.approval.resume.arguments.stdin")))
  })

  it("an omission inside an array of the resume leaves null in its place, and nothing is capped", () => {
    const actions = Array.from(
      { length: 30 },
      (_, i) => ({ type: "type", selector: `#field${i}`, text: `secret-${i}` })
    )
    const result = reduce(
      staged({ action: "batch", actions }, [
        "data.approval.resume.arguments.actions.text",
        "data.approval.resume.arguments.actions.3"
      ])
    )
    const kept = (result.value as Output).data.approval.resume["arguments"] as { actions: Array<unknown> }
    assert.strictEqual(kept.actions.length, 30)
    assert.isNull(kept.actions[3])
    assert.deepStrictEqual(kept.actions[4], { type: "type", selector: "#field4" })
    assert.notInclude(result.text, "secret-")
  })

  it("the limit measures what would be carried: an omitted bulk keeps the rest of the call under it", () => {
    const result = reduce(
      staged({ action: "write", path: "a.txt", content: "z".repeat(Envelope.resumeLimitChars + 500) }, [
        "data.approval.resume.arguments.content"
      ])
    )
    assert.deepStrictEqual((result.value as Output).data.approval.resume, {
      tool: "workspace_command",
      arguments: { action: "write", path: "a.txt" }
    })
  })

  it("past the limit the marker leaves out an approval id the envelope declares omitted", () => {
    const big = { action: "write", content: "z".repeat(Envelope.resumeLimitChars + 1) }
    const withId = (reduce(staged(big, [])).value as Output).data.approval.resume
    assert.strictEqual(withId["approvalId"], "approval_7c1e")
    assert.strictEqual(withId["recovery"], Approvals.resumeRecovery)
    const result = reduce(staged(big, ["data.approval.id"]))
    const marker = (result.value as Output).data.approval.resume
    assert.strictEqual(marker["recovery"], Approvals.resumeRecovery)
    assert.notProperty(marker, "approvalId")
  })

  it("reducing the output again changes nothing", () => {
    const once = reduce(staged(args, omit))
    assert.strictEqual(Reduce.reduce(once.text, { policies: builtInPolicies, cap: 32_000 }).text, once.text)
  })
})
