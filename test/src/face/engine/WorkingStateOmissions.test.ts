import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import * as WorkingState from "../../../../src/face/engine/WorkingState.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

/**
 * Envelopes whose every candidate path holds a value no other part of the
 * session holds (a marker with the envelope's and the path's number), some of
 * them declared omitted: the places the working state and the offline
 * summariser read (job, transaction, approval and its resume, failures,
 * artifacts, ids), as an id, a file path or plain text.
 */
const candidates = [
  "data.approval.resume.arguments.stdin",
  "data.approval.resume.arguments.command",
  "data.approval.title",
  "data.secret",
  "data.job.id",
  "data.job.executable",
  "data.job.stdout",
  "data.transaction.id",
  "data.transaction.files",
  "data.error",
  "data.artifact",
  "data.notes"
] as const
type Candidate = (typeof candidates)[number]

const markerOf = (envelope: number, path: Candidate, salt: string): string => {
  const base = `m${envelope}x${candidates.indexOf(path)}q${salt}`
  switch (path) {
    case "data.job.id":
      return `job_${base}`
    case "data.transaction.id":
      return `tx_${base}`
    case "data.transaction.files":
    case "data.artifact":
      return `src/generated/${base}.ts`
    default:
      return `secret-${base}`
  }
}

const setPath = (target: Record<string, unknown>, path: string, value: unknown): void => {
  const keys = path.split(".")
  let node = target
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null) node[key] = {}
    node = node[key] as Record<string, unknown>
  }
  node[keys[keys.length - 1]!] = value
}

interface Case {
  readonly span: Transcript.Transcript
  readonly omitted: ReadonlyArray<string>
  readonly kept: ReadonlyArray<string>
}

const envelopeCase = fc.record({
  tool: fc.constantFrom(
    ["workspace_command", "run"] as const,
    ["workspace_edit", "stage"] as const,
    ["workspace_inspect", "changes"] as const
  ),
  ok: fc.boolean(),
  pending: fc.boolean(),
  present: fc.subarray([...candidates], { minLength: 1 }),
  omitted: fc.subarray([...candidates], { minLength: 1 }),
  salt: fc.stringMatching(/^[a-z0-9]{6}$/)
})

const sessionCase: fc.Arbitrary<Case> = fc.array(envelopeCase, { minLength: 1, maxLength: 5 }).map((envelopes) => {
  const span: Array<Transcript.Message> = [
    new Transcript.UserMessage({ id: "u0", content: "Stage the importer fix and run the tests." })
  ]
  const omitted: Array<string> = []
  const kept: Array<string> = []
  envelopes.forEach((drawn, index) => {
    const data: Record<string, unknown> = { exitCode: drawn.ok ? 0 : 1 }
    if (drawn.pending) {
      data["status"] = "pending_approval"
      data["mode"] = "ask"
      setPath(data, "approval", {
        id: `approval_${index}f00d${drawn.salt}`,
        kind: "command",
        destructive: false,
        resume: { tool: "workspace_command", arguments: {} }
      })
    }
    for (const path of drawn.present) {
      const marker = markerOf(index, path, drawn.salt)
      const value = path === "data.transaction.files" ? [marker] : marker
      setPath(data, path.slice("data.".length), value)
      if (drawn.omitted.includes(path)) omitted.push(marker)
      else kept.push(marker)
    }
    const envelope = {
      protocol: "agentic-workspace/v1",
      tool: drawn.tool[0],
      action: drawn.tool[1],
      ok: drawn.ok,
      summary: `${drawn.tool[0]} ${drawn.tool[1]} number ${index}`,
      data,
      retention: { importance: "high", omit_when_summarizing: drawn.omitted }
    }
    const call = `call_${index}`
    span.push(
      new Transcript.AssistantMessage({
        id: `a${index}`,
        content: "Running the next step.",
        toolCalls: [
          new Transcript.ToolCall({
            id: call,
            name: drawn.tool[0],
            arguments: JSON.stringify({ action: drawn.tool[1] })
          })
        ]
      })
    )
    span.push(
      new Transcript.ToolResult({
        id: `r${index}`,
        toolCallId: call,
        name: drawn.tool[0],
        content: JSON.stringify(envelope)
      })
    )
  })
  return { span, omitted, kept }
})

describe("declared omissions reach no summary (SPEC R1.2, R1.11)", () => {
  prop(
    "no value of a declared omission appears in the offline summary or the rendered working state",
    [sessionCase],
    ([{ omitted, span }]) => {
      const summary = SummarizerOffline.summarize(span)
      const state = WorkingState.render(WorkingState.extract(span))
      for (const marker of omitted) {
        assert.notInclude(summary, marker, `the offline summary carries ${marker}`)
        assert.notInclude(state, marker, `the working state carries ${marker}`)
      }
    }
  )

  prop(
    "the envelope read without its omissions is the one the retention rules reduce from: what is not omitted is still read",
    [sessionCase],
    ([{ kept, span }]) => {
      const read = span.flatMap((message) =>
        message._tag === "ToolResult" ? [WorkingState.readToolResult(message.content).content] : []
      ).join("\n")
      for (const marker of kept) assert.include(read, marker)
    }
  )

  it("a staged approval's resume keeps its call but not the stdin it declares omitted; the rule is the built-in policy's own", () => {
    const envelope = {
      protocol: "agentic-workspace/v1",
      tool: "workspace_command",
      action: "run",
      ok: true,
      data: {
        status: "pending_approval",
        mode: "ask",
        approval: {
          id: "approval_5ec2e7",
          kind: "command",
          title: "Write the key",
          resume: {
            tool: "workspace_command",
            arguments: { command: "tee key.pem", stdin: "-----BEGIN PRIVATE KEY-----hunter2" }
          }
        }
      },
      retention: { omit_when_summarizing: ["data.approval.resume.arguments.stdin"] }
    }
    const span = [
      new Transcript.UserMessage({ id: "u0", content: "Install the key." }),
      new Transcript.AssistantMessage({
        id: "a0",
        content: "Staging.",
        toolCalls: [new Transcript.ToolCall({ id: "c0", name: "workspace_command", arguments: "{}" })]
      }),
      new Transcript.ToolResult({
        id: "r0",
        toolCallId: "c0",
        name: "workspace_command",
        content: JSON.stringify(envelope)
      })
    ]
    const summary = SummarizerOffline.summarize(span)
    assert.include(summary, `workspace_command {"command":"tee key.pem"}`)
    assert.notInclude(summary, "hunter2")
    assert.notInclude(WorkingState.render(WorkingState.extract(span)), "hunter2")
    assert.deepStrictEqual(Reduce.withoutDeclaredOmissions(envelope).data.approval.resume.arguments as unknown, {
      command: "tee key.pem"
    })
  })
})
