/**
 * Writes the example agentic-workspace/v1 envelopes of `examples/envelopes/`.
 * Deterministic: ids are hashes of fixed labels and the bulky text comes from a
 * seeded generator, so running it again rewrites the same bytes.
 *
 *     npx tsx examples/make-envelopes.ts
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { seeded } from "./seeded.js"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const outputDirectory = join(dirname(fileURLToPath(import.meta.url)), "envelopes")

/** An id of the protocol: its prefix and eight hex digits of a hash of `label`. */
const idOf = (prefix: string, label: string): string =>
  `${prefix}${createHash("sha256").update(`context-compressor examples/${label}`).digest("hex").slice(0, 8)}`

const timestamp = (minutesAfterStart: number): string =>
  new Date(Date.UTC(2026, 2, 2, 9, 14) + minutesAfterStart * 60_000).toISOString().replace(".000Z", "Z")

const identifiers = [
  "budget",
  "trigger",
  "turns",
  "boundary",
  "summary",
  "keep",
  "pinned",
  "window",
  "tokens",
  "cursor"
]
const callees = ["Budget.of", "Boundary.find", "Turns.split", "Summary.request", "Tokens.estimate", "Window.fit"]

const codeLine = (random: ReturnType<typeof seeded>, indent: string): string => {
  const name = random.pick(identifiers)
  const other = random.pick(identifiers)
  const forms = [
    `${indent}const ${name} = ${random.pick(callees)}(${other}, ${random.below(90) + 10})`,
    `${indent}if (${name}.length > ${other}Limit) return ${random.pick(callees)}(${name})`,
    `${indent}${name} = Math.min(${name}, ${other} * ${(random.below(8) + 1) / 10})`,
    `${indent}yield* Effect.logDebug(\`${name}: \${${other}.length} of \${${name}.length}\`)`,
    `${indent}// the ${name} never heads the outbound view: its ${other} stays with it`,
    `${indent}return { ...${name}, ${other}: ${random.pick(callees)}(${other}) }`
  ]
  return random.pick(forms)
}

/** A unified diff of `files`, with `hunksPerFile` hunks of changed TypeScript each. */
const unifiedDiff = (random: ReturnType<typeof seeded>, files: ReadonlyArray<string>, hunksPerFile: number): string => {
  const lines: Array<string> = []
  for (const file of files) {
    lines.push(`diff --git a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`)
    let start = random.below(20) + 1
    for (let hunk = 0; hunk < hunksPerFile; hunk++) {
      const removed = random.below(4) + 1
      const added = random.below(6) + 2
      lines.push(`@@ -${start},${removed + 4} +${start},${added + 4} @@`)
      lines.push(` ${codeLine(random, "  ")}`, ` ${codeLine(random, "  ")}`)
      for (let i = 0; i < removed; i++) lines.push(`-${codeLine(random, "  ")}`)
      for (let i = 0; i < added; i++) lines.push(`+${codeLine(random, "  ")}`)
      lines.push(` ${codeLine(random, "  ")}`, ` ${codeLine(random, "  ")}`)
      start += random.below(60) + 20
    }
  }
  return lines.join("\n")
}

/** The first whole lines of `text` within `maxChars`, and how many lines were left out. */
const headLines = (text: string, maxChars: number): { readonly head: string; readonly linesOmitted: number } => {
  const lines = text.split("\n")
  const kept: Array<string> = []
  let size = 0
  for (const line of lines) {
    if (size + line.length + 1 > maxChars) break
    kept.push(line)
    size += line.length + 1
  }
  return { head: kept.join("\n"), linesOmitted: lines.length - kept.length }
}

const stagedEdit = (): Json => {
  const random = seeded(1)
  const transaction = idOf("tx_", "staged-edit/transaction")
  const approval = idOf("approval_", "staged-edit/approval")
  const files = [
    "src/Compaction/Boundary.ts",
    "src/Compaction/Budget.ts",
    "src/Compaction/Summary.ts",
    "src/Session.ts",
    "test/Compaction/Boundary.test.ts",
    "test/Compaction/Budget.test.ts"
  ]
  const fullDiff = unifiedDiff(random, files, 14)
  const { head: diff, linesOmitted } = headLines(fullDiff, 20_000)
  return {
    protocol: "agentic-workspace/v1",
    tool: "workspace_edit",
    action: "stage",
    ok: true,
    summary: `Staged ${transaction} (${files.length} files); commit waits for approval ${approval}`,
    data: {
      status: "pending_approval",
      mode: "ask",
      approval: {
        id: approval,
        kind: "transaction",
        title: `Commit ${files.length} edits to src/Compaction and its tests`,
        destructive: false,
        resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: transaction } }
      },
      transaction: {
        id: transaction,
        status: "staged",
        files,
        stagedAt: timestamp(3),
        insertions: fullDiff.split("\n").filter((line) => line.startsWith("+") && !line.startsWith("+++")).length,
        deletions: fullDiff.split("\n").filter((line) => line.startsWith("-") && !line.startsWith("---")).length
      },
      diff,
      diffBytes: Buffer.byteLength(fullDiff),
      diffTruncated: true,
      diffLinesOmitted: linesOmitted
    },
    retention: {
      importance: "high",
      facts: [
        `${transaction} staged: ${files.length} files under src/Compaction and test/Compaction`,
        `commit needs approval ${approval} (mode ask)`
      ]
    }
  }
}

const commandOutput = (): Json => {
  const random = seeded(2)
  const job = idOf("job_", "command-output/job")
  const suites = ["Boundary", "Budget", "Summary", "Session", "Reduce", "Interpreter", "Clip", "Matcher"]
  const behaviours = [
    "keeps each tool call with its result",
    "never starts the outbound view with a tool result",
    "pins the first user message whole",
    "clamps the trigger percentage to 10-95",
    "refuses a summary under 400 characters",
    "retries once before asking the user",
    "carries the staged approval verbatim",
    "caps arrays longer than 20 with a counter"
  ]
  const lines: Array<string> = [" RUN  v3.2.4 /workspace/context-compressor", ""]
  for (let i = 0; lines.length < 6_000; i++) {
    const suite = random.pick(suites)
    const failed = random.below(40) === 0
    lines.push(
      `${failed ? " ×" : " ✓"} test/${suite}.test.ts > ${suite} > ${random.pick(behaviours)} #${i} ${
        random.below(120) + 1
      }ms`
    )
    if (failed) {
      lines.push(`   → expected ${random.below(9000) + 1000} to be less than or equal to ${random.below(9000) + 1000}`)
    }
  }
  lines.push(
    "",
    " Test Files  3 failed | 61 passed (64)",
    "      Tests  148 failed | 5850 passed (5998)",
    "   Duration  41.27s"
  )
  const fullStdout = lines.join("\n")
  const { head: stdout, linesOmitted } = headLines(fullStdout, 60_000)
  const stderr = [
    "(node:4127) ExperimentalWarning: VM Modules is an experimental feature",
    "npm error code 1",
    "npm error command failed",
    "npm error command sh -c vitest run"
  ].join("\n")
  return {
    protocol: "agentic-workspace/v1",
    tool: "workspace_command",
    action: "status",
    ok: true,
    summary: `${job} exited with code 1 after 41 s: 148 of 5998 tests failed`,
    data: {
      job: {
        id: job,
        status: "exited",
        executable: "npm",
        args: ["test", "--", "--reporter=verbose"],
        cwd: "/workspace/context-compressor",
        exitCode: 1,
        startedAt: timestamp(10),
        finishedAt: timestamp(11)
      },
      stdout,
      stdoutTruncated: true,
      stdoutBytes: Buffer.byteLength(fullStdout),
      stdoutLinesOmitted: linesOmitted,
      stderr,
      stderrTruncated: false,
      stderrChars: stderr.length
    },
    retention: {
      importance: "normal",
      facts: [
        `${job} (npm test) exited 1: 148 failed, 5850 passed`,
        "stdout was truncated by the workspace: the head is shown"
      ]
    }
  }
}

const planPropose = (): Json => {
  const random = seeded(3)
  const plan = idOf("plan_", "plan-propose/plan")
  const previous = idOf("plan_", "plan-propose/previous")
  const verbs = ["Extract", "Test", "Document", "Rename", "Measure", "Replace", "Split", "Wire"]
  const subjects = [
    "the boundary search",
    "the keep budget",
    "the summariser request",
    "the quality gate",
    "the failure policy",
    "the compacted block",
    "the token estimate",
    "the transcript writer"
  ]
  const steps = Array.from({ length: 30 }, (_, index) => {
    const title = `${random.pick(verbs)} ${random.pick(subjects)}`
    return {
      n: index + 1,
      title,
      status: index < 4 ? "done" : "pending",
      files: [`src/Compaction/${random.pick(["Boundary", "Budget", "Summary", "Gate", "Block"])}.ts`],
      detail: `${title}: ${
        codeLine(random, "")
      }; then run the compaction tests and compare the outbound view with the previous revision.`
    }
  })
  const markdown = [
    `# Plan ${plan} (revision 2)`,
    "",
    `Supersedes ${previous}: the first revision compacted before measuring the provider's token count.`,
    "",
    ...steps.map((step) => `${step.n}. [${step.status === "done" ? "x" : " "}] **${step.title}** — ${step.detail}`)
  ].join("\n")
  return {
    protocol: "agentic-workspace/v1",
    tool: "workspace_plan",
    action: "propose",
    ok: true,
    summary: `Proposed ${plan} revision 2 (30 steps), superseding ${previous}`,
    data: {
      plan: {
        id: plan,
        status: "proposed",
        revision: 2,
        supersedes: previous,
        planPath: `.workspace/plans/${plan}.md`,
        steps
      },
      markdown,
      propose: { tool: "workspace_plan", arguments: { action: "accept", plan_id: plan, revision: 2 } }
    },
    retention: {
      importance: "normal",
      facts: [`${plan} revision 2 proposed, supersedes ${previous}`, "accepting it makes it the active plan"],
      omit_when_summarizing: ["data.markdown", "data.plan.steps"]
    }
  }
}

const inspectOverview = (): Json => {
  const random = seeded(4)
  const modules = ["Boundary", "Budget", "Summary", "Gate", "Block", "Session", "Reduce", "Clip"]
  const statuses = ["committed", "committed", "committed", "staged", "discarded"]
  const recentTransactions = Array.from({ length: 30 }, (_, index) => {
    const module = random.pick(modules)
    const files = [`src/${module}.ts`, `test/${module}.test.ts`]
    const { head: diff } = headLines(unifiedDiff(random, files, 3), 800)
    return {
      id: idOf("tx_", `inspect-overview/transaction/${index}`),
      status: random.pick(statuses),
      title: `${random.pick(["Tighten", "Fix", "Simplify", "Cover"])} ${module.toLowerCase()} handling`,
      files,
      committedAt: timestamp(-600 + index * 17),
      diff
    }
  })
  const recentRuns = Array.from({ length: 8 }, (_, index) => ({
    id: idOf("run_", `inspect-overview/run/${index}`),
    status: index === 7 ? "running" : "completed",
    role: random.pick(["researcher", "reviewer", "tester"]),
    startedAt: timestamp(-480 + index * 45)
  }))
  const tree = Array.from(
    { length: 240 },
    (_, index) => `${random.pick(["src", "test", "rules", "docs"])}/${random.pick(modules)}/${index}.ts`
  )
  const approval = idOf("approval_", "inspect-overview/approval")
  const plan = idOf("plan_", "inspect-overview/plan")
  return {
    protocol: "agentic-workspace/v1",
    tool: "workspace_inspect",
    action: "overview",
    ok: true,
    summary: `Workspace overview: ${plan} active, 1 approval pending, 30 recent transactions`,
    data: {
      permissionMode: "ask",
      activePlan: plan,
      pendingPlan: null,
      pendingApprovals: [approval],
      recentTransactions,
      recentRuns,
      recentTaskBoards: [
        { id: idOf("todo_", "inspect-overview/board/release"), title: "release 0.1.0", open: 6, done: 14 },
        { id: idOf("todo_", "inspect-overview/board/docs"), title: "documentation pass", open: 3, done: 2 }
      ],
      recentResearchProjects: [
        {
          id: idOf("research_", "inspect-overview/research"),
          title: "tokenizer accuracy per provider",
          status: "running"
        }
      ],
      fileTree: tree.join("\n"),
      fileTreeEntries: 1_240,
      fileTreeTruncated: true
    },
    retention: {
      importance: "high",
      facts: [`active plan ${plan}`, `approval ${approval} pending`, "30 recent transactions, newest last"]
    }
  }
}

const envelopes: ReadonlyArray<readonly [string, Json]> = [
  ["staged-edit.json", stagedEdit()],
  ["command-output.json", commandOutput()],
  ["plan-propose.json", planPropose()],
  ["inspect-overview.json", inspectOverview()]
]

mkdirSync(outputDirectory, { recursive: true })
for (const [name, envelope] of envelopes) {
  const text = `${JSON.stringify(envelope, null, 2)}\n`
  writeFileSync(join(outputDirectory, name), text)
  console.log(`wrote examples/envelopes/${name} (${text.length} characters)`)
}
