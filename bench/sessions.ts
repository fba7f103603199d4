/**
 * Deterministic agent sessions for the compaction benchmark: the same seed,
 * length and profile always give the same transcript. Each turn is a user
 * message, one to four assistant steps of one to three tool calls (bash
 * commands, file reads and writes, agentic-workspace/v1 envelopes such as
 * `workspace_command status` with its stdout, and now and then a staged edit
 * that the next user message accepts) with their results, and an assistant
 * reply. Message ids are m0, m1, …; call ids c0, c1, ….
 */
import * as Transcript from "../src/face/models/Transcript.js"
import { paragraph, Prng, sentence as sentenceOf } from "./generate.js"

/** How long tool results are, in characters. */
export interface Profile {
  readonly name: string
  readonly resultMin: number
  readonly resultMax: number
}

/** Tool results of 200 to 4,000 characters. */
export const realistic: Profile = { name: "results 200-4,000 chars", resultMin: 200, resultMax: 4_000 }

/** Tool results of 200 to 600 characters: 10,000 messages that fit a 2M-token window whole. */
export const small: Profile = { name: "results 200-600 chars", resultMin: 200, resultMax: 600 }

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
  "check",
  "import",
  "type",
  "error",
  "schema",
  "layer",
  "service",
  "effect",
  "stream",
  "request",
  "retry",
  "timeout",
  "handler",
  "session",
  "token",
  "budget",
  "view",
  "summary",
  "build",
  "lint",
  "coverage",
  "snapshot",
  "fixture"
]

const sentence = (rng: Prng, min: number, max: number): string => sentenceOf(rng, min, max, words)

const prose = (rng: Prng, chars: number): string => paragraph(rng, chars, words, 5, 16)

const sourcePath = (rng: Prng): string =>
  `${rng.pick(["src", "test", "lib", "packages/core/src", "packages/cli/src"])}/mod${rng.int(0, 30)}/${
    rng.pick(["parser", "cache", "index", "service", "layer", "util"])
  }${rng.int(0, 40)}.${rng.pick(["ts", "ts", "ts", "tsx", "json", "md"])}`

/** Lines made by `make` until their text reaches `chars`, cut there. */
const linesOf = (chars: number, make: (index: number) => string): string => {
  const out: Array<string> = []
  let used = 0
  while (used < chars) {
    const line = make(out.length)
    out.push(line)
    used += line.length + 1
  }
  return out.join("\n").slice(0, Math.max(chars, 1))
}

const codeLine = (rng: Prng, n: number): string => {
  switch (rng.int(0, 6)) {
    case 0:
      return `import * as ${rng.pick(["Effect", "Layer", "Schema", "Option", "Stream"])} from "effect/${
        rng.pick(["Effect", "Layer", "Schema"])
      }"`
    case 1:
      return `export const ${rng.pick(words)}${n} = (${rng.pick(words)}: string): number => ${
        rng.pick(words)
      }.length + ${rng.int(0, 99)}`
    case 2:
      return `  // ${sentence(rng, 4, 12)}`
    case 3:
      return `  if (${rng.pick(words)} === undefined) return yield* Effect.fail(new ${
        rng.pick(["ParseError", "CacheMiss", "Timeout"])
      }({ at: ${n} }))`
    default:
      return `  const ${rng.pick(words)}${rng.int(0, 9)} = yield* ${rng.pick(words)}.${
        rng.pick(["get", "load", "run", "make"])
      }(${rng.int(0, 999)})`
  }
}

const outputLine = (rng: Prng, n: number): string => {
  switch (rng.int(0, 5)) {
    case 0:
      return ` ✓ ${sourcePath(rng)} (${rng.int(1, 60)} tests) ${rng.int(1, 900)}ms`
    case 1:
      return ` × ${sourcePath(rng)} > ${sentence(rng, 3, 8)} ${rng.int(1, 900)}ms`
    case 2:
      return `   at ${rng.pick(["Object.<anonymous>", "runTest", "processTicksAndRejections"])} (${sourcePath(rng)}:${
        rng.int(1, 999)
      }:${rng.int(1, 80)})`
    case 3:
      return `${sourcePath(rng)}:${rng.int(1, 400)}:${rng.int(1, 80)} - error TS${rng.int(2000, 2999)}: ${
        sentence(rng, 4, 10)
      }`
    default:
      return `${rng.pick(["info", "debug", "warn"])} ${n} ${sentence(rng, 3, 9)}`
  }
}

interface Step {
  readonly name: string
  readonly args: string
  readonly result: string
  readonly approvalId?: string
}

const bashCommand = (rng: Prng): { readonly command: string; readonly code: number } => {
  switch (rng.int(0, 9)) {
    case 0:
      return { command: `npm test -- --run ${sourcePath(rng)}`, code: rng.pick([0, 0, 1]) }
    case 1:
      return { command: `ls -la ${sourcePath(rng).replace(/\/[^/]*$/, "")}`, code: 0 }
    case 2:
      return { command: `grep -rn "${rng.pick(words)}" src test`, code: rng.pick([0, 0, 1]) }
    case 3:
      return { command: `cat ${sourcePath(rng)}`, code: 0 }
    case 4:
      return { command: "git status --short && git diff --stat", code: 0 }
    case 5:
      return { command: `sed -i 's/${rng.pick(words)}/${rng.pick(words)}/g' ${sourcePath(rng)}`, code: 0 }
    case 6:
      return { command: `echo "${sentence(rng, 3, 8)}" > notes/step${rng.int(0, 200)}.md`, code: 0 }
    case 7:
      return { command: "npx tsc --noEmit -p tsconfig.json", code: rng.pick([0, 2]) }
    default:
      return { command: `node scripts/check.mjs --only ${rng.pick(words)}`, code: rng.pick([0, 1]) }
  }
}

const bashStep = (rng: Prng, size: number): Step => {
  const { code, command } = bashCommand(rng)
  const head = `<returncode>${code}</returncode>\n<output>\n`
  const tail = "\n</output>"
  const body = linesOf(Math.max(size - head.length - tail.length, 20), (n) => outputLine(rng, n))
  return { name: "bash", args: JSON.stringify({ command }), result: head + body + tail }
}

const readStep = (rng: Prng, size: number): Step => {
  const path = sourcePath(rng)
  return { name: "read_file", args: JSON.stringify({ path }), result: linesOf(size, (n) => codeLine(rng, n)) }
}

const writeStep = (rng: Prng, size: number): Step => {
  const path = sourcePath(rng)
  const content = linesOf(rng.int(80, 600), (n) => codeLine(rng, n))
  const head = `Wrote ${content.length} characters to ${path}.\n`
  const diff = linesOf(Math.max(size - head.length, 20), (n) => `${rng.pick(["+", "-", " "])}${codeLine(rng, n)}`)
  return { name: rng.pick(["write_file", "edit_file"]), args: JSON.stringify({ path, content }), result: head + diff }
}

const envelopeText = (
  tool: string,
  action: string,
  summary: string,
  data: Record<string, unknown>,
  facts: ReadonlyArray<string>,
  importance: string
): string =>
  JSON.stringify({
    protocol: "agentic-workspace/v1",
    tool,
    action,
    ok: true,
    summary,
    data,
    retention: { importance, facts }
  })

const commandStep = (rng: Prng, size: number): Step => {
  const jobId = `job_${rng.hex(8)}`
  const exitCode = rng.pick([0, 0, 0, 1])
  const job = { id: jobId, status: "exited", executable: rng.pick(["npm", "npx", "pnpm"]), exitCode }
  const make = (stdout: string) =>
    envelopeText(
      "workspace_command",
      "status",
      `${jobId} exited ${exitCode}`,
      { job, stdout, stdoutTruncated: false, stderr: "" },
      [`${jobId} exited ${exitCode}`],
      "medium"
    )
  const room = Math.max(size - make("").length, 20)
  // JSON escapes the newlines of stdout: aim a little under the room so the envelope lands near `size`.
  const stdout = linesOf(Math.floor(room * 0.97), (n) => outputLine(rng, n))
  return { name: "workspace_command", args: JSON.stringify({ action: "status", job_id: jobId }), result: make(stdout) }
}

const transactionStep = (rng: Prng, size: number, stage: boolean): Step => {
  const tx = `tx_${rng.hex(8)}`
  const approval = `approval_${rng.hex(8)}`
  const files = Array.from({ length: rng.int(1, 4) }, () => sourcePath(rng))
  const make = (diff: string) =>
    stage
      ? envelopeText(
        "workspace_edit",
        "stage",
        `Staged ${tx}; approval ${approval} required`,
        {
          status: "pending_approval",
          mode: "ask",
          transaction: { id: tx, status: "staged", files, diff },
          approval: {
            id: approval,
            kind: "transaction",
            title: "Commit edits",
            destructive: false,
            resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: tx } }
          }
        },
        [`${tx} staged, waiting for approval ${approval}`],
        "high"
      )
      : envelopeText(
        "workspace_edit",
        "commit",
        `Committed ${tx}`,
        { transaction: { id: tx, status: "committed", files, diff } },
        [`${tx} committed`],
        "high"
      )
  const room = Math.max(size - make("").length, 20)
  const diff = linesOf(Math.floor(room * 0.97), (n) => `${rng.pick(["+", "-", " "])}${codeLine(rng, n)}`)
  return {
    name: "workspace_edit",
    args: JSON.stringify(stage ? { action: "stage", files } : { action: "commit", transaction_id: tx }),
    result: make(diff),
    ...(stage ? { approvalId: approval } : {})
  }
}

const step = (rng: Prng, profile: Profile, canStage: boolean): Step => {
  const size = rng.int(profile.resultMin, profile.resultMax)
  const roll = rng.next()
  if (roll < 0.34) return bashStep(rng, size)
  if (roll < 0.54) return readStep(rng, size)
  if (roll < 0.66) return writeStep(rng, size)
  if (roll < 0.9) return commandStep(rng, size)
  return transactionStep(rng, size, canStage && rng.bool(0.3))
}

const intentions = ["Let me check", "I'll read", "Next I'll run", "Let me look at", "I will rerun", "Now I'll inspect"]
const decisions = ["The root cause is", "The fix is", "This confirms", "Instead we should", "The simplest approach is"]

/**
 * A session of exactly `length` messages (a system message first), built from
 * whole turns and cut at `length`: the last turn may stop anywhere in it.
 */
export const session = (
  length: number,
  profile: Profile = realistic,
  seed = 0xc0ffee
): ReadonlyArray<Transcript.Message> => {
  const rng = new Prng(seed ^ length ^ (profile.resultMax << 8))
  const messages: Array<Transcript.Message> = []
  const id = () => `m${messages.length}`
  let call = 0
  let pendingApproval: string | undefined
  messages.push(
    new Transcript.SystemMessage({
      id: id(),
      content: "You are a coding agent working in a TypeScript repository. Use the tools to read, edit and test code."
    })
  )
  while (messages.length < length) {
    const ask = prose(rng, rng.int(20, 400))
    const accept = pendingApproval !== undefined
    messages.push(new Transcript.UserMessage({ id: id(), content: accept ? `/accept ${pendingApproval} ${ask}` : ask }))
    pendingApproval = undefined
    const steps = rng.int(1, 4)
    for (let s = 0; s < steps; s++) {
      const batch = Array.from({ length: rng.int(1, 3) }, () => step(rng, profile, pendingApproval === undefined))
      const calls = batch.map((b) => new Transcript.ToolCall({ id: `c${call++}`, name: b.name, arguments: b.args }))
      const lead = rng.bool(0.2) ? `${rng.pick(decisions)} ${sentence(rng, 4, 12)} ` : ""
      messages.push(
        new Transcript.AssistantMessage({
          id: id(),
          content: `${lead}${rng.pick(intentions)} ${sentence(rng, 3, 10)}`,
          toolCalls: calls
        })
      )
      batch.forEach((b, i) => {
        messages.push(
          new Transcript.ToolResult({ id: id(), toolCallId: calls[i]!.id, name: b.name, content: b.result })
        )
        if (b.approvalId !== undefined) pendingApproval = b.approvalId
      })
    }
    messages.push(
      new Transcript.AssistantMessage({
        id: id(),
        content: `${rng.pick(decisions)} ${prose(rng, rng.int(80, 600))}`,
        toolCalls: []
      })
    )
  }
  return messages.slice(0, length)
}
