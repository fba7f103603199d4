/**
 * Generators of agent transcripts in the neutral model, for the engine's
 * property tests: turns of a user message, assistant tool calls with their
 * results (some agentic-workspace/v1 envelopes, some staged approvals, some
 * answered by `/accept`), and assistant replies.
 */
import * as fc from "fast-check"
import * as Transcript from "../src/face/models/Transcript.js"

const words = [
  "the",
  "test",
  "fails",
  "in",
  "module",
  "boundary",
  "fix",
  "parser",
  "config",
  "cache",
  "read",
  "file",
  "we",
  "should",
  "check"
]

const sentence = (min: number, max: number) =>
  fc.array(fc.constantFrom(...words), { minLength: min, maxLength: max, size: "max" }).map((ws) => ws.join(" "))

const hex = fc.stringMatching(/^[0-9a-f]{8}$/)

interface ToolStep {
  readonly name: string
  readonly args: string
  readonly result: string
  readonly approvalId?: string
}

const shellStep: fc.Arbitrary<ToolStep> = fc
  .tuple(
    fc.constantFrom("ls src", "cat src/app.ts", "npm test", "grep -r cache src", "echo x > out.txt"),
    fc.integer({ min: 0, max: 2 }),
    sentence(20, 900)
  )
  .map(([command, code, output]) => ({
    name: "bash",
    args: JSON.stringify({ command }),
    result: `<returncode>${code}</returncode>\n<output>\n${output}\n</output>`
  }))

const envelopeStep: fc.Arbitrary<ToolStep> = fc.tuple(hex, sentence(20, 1500)).map(([id, diff]) => ({
  name: "workspace_command",
  args: JSON.stringify({ action: "status", job_id: `job_${id}` }),
  result: JSON.stringify({
    protocol: "agentic-workspace/v1",
    tool: "workspace_command",
    action: "status",
    ok: true,
    summary: `job_${id} exited 0`,
    data: {
      job: { id: `job_${id}`, status: "exited", executable: "npm", exitCode: 0 },
      stdout: diff,
      stdoutTruncated: false
    },
    retention: { importance: "normal", facts: [`job_${id} exited 0`] }
  })
}))

const approvalStep: fc.Arbitrary<ToolStep> = fc.tuple(hex, hex).map(([tx, approval]) => ({
  name: "workspace_edit",
  args: JSON.stringify({ action: "stage", files: ["src/app.ts"] }),
  approvalId: `approval_${approval}`,
  result: JSON.stringify({
    protocol: "agentic-workspace/v1",
    tool: "workspace_edit",
    action: "stage",
    ok: true,
    summary: `Staged tx_${tx}; approval approval_${approval} required`,
    data: {
      status: "pending_approval",
      mode: "ask",
      approval: {
        id: `approval_${approval}`,
        kind: "transaction",
        title: "Commit edits",
        destructive: false,
        resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: `tx_${tx}` } }
      }
    },
    retention: { importance: "high", facts: [`tx_${tx} staged, waiting for approval approval_${approval}`] }
  })
}))

interface Turn {
  readonly user: string
  readonly steps: ReadonlyArray<ReadonlyArray<ToolStep>>
  readonly reply: string
  readonly accept: boolean
}

const turn: fc.Arbitrary<Turn> = fc.record({
  user: sentence(3, 120),
  steps: fc.array(
    fc.array(
      fc.oneof({ weight: 4, arbitrary: shellStep }, { weight: 2, arbitrary: envelopeStep }, {
        weight: 1,
        arbitrary: approvalStep
      }),
      { minLength: 1, maxLength: 3 }
    ),
    { maxLength: 4 }
  ),
  reply: sentence(3, 80),
  accept: fc.boolean()
})

/** Builds a transcript from turns, with ids m0, m1, … and call ids c0, c1, …. */
export const fromTurns = (turns: ReadonlyArray<Turn>, system = true): Transcript.Transcript => {
  const messages: Array<Transcript.Message> = []
  let call = 0
  const id = () => `m${messages.length}`
  if (system) messages.push(new Transcript.SystemMessage({ id: id(), content: "You are a coding agent." }))
  let pendingApproval: string | undefined
  for (const t of turns) {
    const accept = t.accept && pendingApproval !== undefined
    messages.push(
      new Transcript.UserMessage({ id: id(), content: accept ? `/accept ${pendingApproval} — ${t.user}` : t.user })
    )
    if (accept) pendingApproval = undefined
    for (const batch of t.steps) {
      const calls = batch.map((step) =>
        new Transcript.ToolCall({ id: `c${call++}`, name: step.name, arguments: step.args })
      )
      messages.push(new Transcript.AssistantMessage({ id: id(), content: "Let me check.", toolCalls: calls }))
      batch.forEach((step, i) => {
        messages.push(
          new Transcript.ToolResult({ id: id(), toolCallId: calls[i]!.id, name: step.name, content: step.result })
        )
        if (step.approvalId !== undefined) pendingApproval = step.approvalId
      })
    }
    messages.push(new Transcript.AssistantMessage({ id: id(), content: t.reply, toolCalls: [] }))
  }
  return messages
}

/** A transcript of 1 to `maxTurns` turns. */
export const transcript = (maxTurns = 30): fc.Arbitrary<Transcript.Transcript> =>
  fc.array(turn, { minLength: 1, maxLength: maxTurns, size: "max" }).map((turns) => fromTurns(turns))

/** Twelve turns, each with a long command output and an agentic-workspace/v1 job status: compacts in an 8,000-token window. */
export const longSession: Transcript.Transcript = fromTurns(
  Array.from({ length: 12 }, (_, i) => ({
    user: `request ${i}: ` + "please fix the parser cache ".repeat(20),
    steps: [[
      {
        name: "bash",
        args: JSON.stringify({ command: `cat src/file${i}.ts` }),
        result: `<returncode>0</returncode>\n<output>\n${"line of code\n".repeat(300)}</output>`
      },
      {
        name: "workspace_command",
        args: JSON.stringify({ action: "status", job_id: `job_0000000${i}` }),
        result: JSON.stringify({
          protocol: "agentic-workspace/v1",
          tool: "workspace_command",
          action: "status",
          ok: true,
          data: {
            job: { id: `job_0000000${i}`, status: "exited", exitCode: i % 2 },
            stdout: "test output line\n".repeat(200),
            stdoutTruncated: false
          },
          retention: { importance: "normal", facts: [`job_0000000${i} exited ${i % 2}`] }
        })
      }
    ]],
    reply: `done with step ${i}`,
    accept: false
  }))
)
