/**
 * Probe of the embedded summariser's block (issue 14): sessions compacted
 * mid-session on the offline summariser, and what the agent wakes up to.
 *
 * Sessions: the recorded SWE-agent runs of ../shared/transcripts (skipped
 * when absent), each cut at 60 %, 80 % and 100 % of its messages, at a 32k
 * window; and generated agentic sessions (seeded) that edit files through
 * every mechanism agents use (sed -i, perl -pi, python heredocs and -c,
 * redirects, tee, apply_patch, git apply, patch, editor tools, workspace
 * transactions), in a 24k window.
 *
 * Figures, per group:
 * - edited recall: of the files the run changed (a recorded run: the files of
 *   its final `git diff` whose added lines a call of the compacted span
 *   carries; a generated run: the files it edited in the compacted span), the share the block names on a line that says they were edited,
 *   written, created or patched;
 * - id recall: of the protected ids of the compacted span, the share the block names;
 * - duplicated lines: of the block's non-empty lines (quote marks, bullets and
 *   backticks stripped, 16 characters or more), the share that repeat an earlier line;
 * - block tokens (chars/4), the median.
 *
 * Run: `npx tsx bench/probe.bench.ts` (also part of `npm run bench`).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as WorkingState from "../src/face/engine/WorkingState.js"
import * as AttentionUnattended from "../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../src/face/layers/SettingsFixed.js"
import * as SummarizerOffline from "../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../src/face/layers/SummaryCacheMemory.js"
import * as TokenizerApprox from "../src/face/layers/TokenizerApprox.js"
import * as Transcript from "../src/face/models/Transcript.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import { hasTranscripts, loadTranscripts } from "../test/openai.js"
import { printTable } from "./timing.js"

const engine = (): Compactor.Service =>
  Effect.runSync(
    Layer.build(
      Compactor.layer({ policies: builtInPolicies }).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            SummarizerOffline.layer,
            SummaryCacheMemory.layer,
            CompactionStoreMemory.layer,
            SettingsFixed.layer({}),
            TokenizerApprox.layer,
            AttentionUnattended.layer
          )
        )
      )
    ).pipe(Effect.map((context) => Context.get(context, Compactor.Compactor)), Effect.scoped)
  )

interface Probe {
  readonly block: string
  /** The messages the block replaced. */
  readonly span: Transcript.Transcript
}

/** One compacting checkpoint of `transcript` at `contextWindow`, or none when it does not compact. */
const compactOnce = (transcript: Transcript.Transcript, contextWindow: number): Probe | undefined => {
  const outcome = Effect.runSync(
    Effect.either(engine().checkpoint({ sessionId: "probe", transcript, model: "probe-model", contextWindow }))
  )
  if (Either.isLeft(outcome) || Option.isNone(outcome.right.compacted)) return undefined
  const block = outcome.right.view.find((message): message is Transcript.CompactedBlock => message._tag === "Compacted")
  if (block === undefined) return undefined
  return { block: block.content, span: transcript.slice(0, outcome.right.compacted.value.boundary.index) }
}

const editedWord = /\b(?:edited|edit|written|wrote|created|patched|modified|overwritten)\b/i

/** Whether the block names `path` on a line that says it was changed. */
const namedAsEdited = (block: string, path: string): boolean =>
  block.split("\n").some((line) => line.includes(path) && editedWord.test(line) && !/^\s*-?\s*Also named/i.test(line))

const duplicatedShare = (block: string): number => {
  const lines = block
    .split("\n")
    .map((line) => line.replace(/^[\s>*+-]+/, "").replace(/`/g, "").trim())
    .filter((line) => line.length >= 16 && !line.startsWith("#"))
  const seen = new Set<string>()
  let repeated = 0
  for (const line of lines) {
    if (seen.has(line)) repeated++
    seen.add(line)
  }
  return lines.length === 0 ? 0 : repeated / lines.length
}

const spanIds = (span: Transcript.Transcript): ReadonlyArray<string> =>
  Array.from(
    new Set(
      span.flatMap((message) => [
        ...WorkingState.idsOfText(Transcript.text(message)),
        ...(message._tag === "Assistant"
          ? message.toolCalls.flatMap((call) => WorkingState.idsOfToolText(call.arguments))
          : []),
        ...(message._tag === "ToolResult" ? WorkingState.idsOfToolText(message.content) : [])
      ])
    )
  )

interface Score {
  readonly edited: { readonly found: number; readonly total: number }
  readonly ids: { readonly found: number; readonly total: number }
  readonly duplicated: number
  readonly tokens: number
}

const score = (probe: Probe, changed: ReadonlyArray<string>): Score => {
  const ids = spanIds(probe.span)
  return {
    edited: { found: changed.filter((path) => namedAsEdited(probe.block, path)).length, total: changed.length },
    ids: { found: ids.filter((id) => probe.block.includes(id)).length, total: ids.length },
    duplicated: duplicatedShare(probe.block),
    tokens: TokenizerApprox.count(probe.block)
  }
}

// --- recorded runs -----------------------------------------------------------

/** The text of a call's arguments: its parsed string values, so escapes do not hide the code it writes. */
const argumentText = (raw: string): string => {
  try {
    const strings: Array<string> = []
    const visit = (value: unknown): void => {
      if (typeof value === "string") strings.push(value)
      else if (Array.isArray(value)) value.forEach(visit)
      else if (typeof value === "object" && value !== null) Object.values(value).forEach(visit)
    }
    visit(JSON.parse(raw))
    return strings.join("\n")
  } catch {
    return raw
  }
}

/**
 * The files of a run's final `git diff` that the compacted span changed: a
 * call of the span carries one of the lines the final diff adds to the file
 * (12 characters or more), as `sed`, a script or an editor call that writes
 * the new code does. Independent of how the block detects edits.
 */
const changedInSpan = (whole: Transcript.Transcript, span: Transcript.Transcript): ReadonlyArray<string> => {
  const added = new Map<string, Set<string>>()
  for (const message of whole) {
    if (message._tag !== "ToolResult") continue
    for (const file of message.content.split(/^diff --git /m).slice(1)) {
      const path = /^a\/(\S+) b\//.exec(file)?.[1]
      if (path === undefined) continue
      const lines = added.get(path) ?? new Set<string>()
      for (const match of file.matchAll(/^\+(?!\+\+)(.*)$/gm)) {
        if (match[1]!.trim().length >= 12) lines.add(match[1]!.trim())
      }
      added.set(path, lines)
    }
  }
  const calls = span.flatMap((message) =>
    message._tag === "Assistant" ? message.toolCalls.map((call) => argumentText(call.arguments)) : []
  )
  return [...added].filter(([, lines]) => [...lines].some((line) => calls.some((text) => text.includes(line)))).map((
    [path]
  ) => path)
}

// --- generated agentic sessions ------------------------------------------------

/** A small seeded generator (mulberry32). */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

type Edit = (path: string, id: string) => { readonly name: string; readonly args: unknown; readonly result: string }

const bash = (command: string, result = "<returncode>0</returncode>") => ({ name: "bash", args: { command }, result })

/** The ways agents edit a file, each as the call that does it. */
const edits: ReadonlyArray<Edit> = [
  (path) => bash(`cd /repo && sed -i 's/old_value/new_value/g' ${path}`),
  (path) => bash(`perl -pi -e 's/\\bfoo\\b/bar/' ${path}`),
  (path) =>
    bash(
      `python - <<'EOF'\nimport re\nsrc = open('${path}').read()\nopen('${path}', 'w').write(src.replace('a', 'b'))\nEOF`
    ),
  (path) => bash(`python -c "p='${path}'; s=open(p).read(); open(p,'w').write(s.replace('x','y'))"`),
  (path) => bash(`cat > ${path} <<'EOF'\ndef fixed():\n    return 1\nEOF`),
  (path) => bash(`printf 'line\\n' | tee -a ${path}`),
  (path) =>
    bash(
      `git apply /tmp/fix.diff`,
      `<returncode>0</returncode>\n<output>\nChecking patch ${path}...\nApplied patch ${path} cleanly.\n</output>`
    ),
  (path) =>
    bash(`patch -p1 < /tmp/fix.patch`, `<returncode>0</returncode>\n<output>\npatching file ${path}\n</output>`),
  (path) => ({
    name: "apply_patch",
    args: { input: `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch` },
    result: "Done"
  }),
  (path) => ({
    name: "str_replace_editor",
    args: { command: "str_replace", path, old_str: "a = 1", new_str: "a = 2" },
    result: "The file has been edited."
  }),
  (path) => ({
    name: "edit_file",
    args: { target_file: path, instructions: "rename", code_edit: "x = 2" },
    result: "ok"
  }),
  (path) => ({ name: "write_file", args: { file_path: path, content: "print(1)\n" }, result: "Wrote 9 bytes" }),
  (path, id) => ({
    name: "workspace_edit",
    args: { action: "commit", transaction_id: id },
    result: JSON.stringify({
      protocol: "agentic-workspace/v1",
      tool: "workspace_edit",
      action: "commit",
      ok: true,
      summary: `Committed ${id}`,
      data: { transaction: { id, status: "committed", files: [path] } }
    })
  })
]

const narration = [
  "Let me look at the module first.",
  "Let me check how this is called.",
  "Now let me run the tests again.",
  "I'll search for other usages."
]
const decisions = [
  "The issue is that the ordering is lost when the parent's Meta is copied.",
  "I'll change the compiler because it resolves pk before the ordering is inherited.",
  "Plan: fix the resolver, then add a regression test."
]

/** A session that edits files through the mechanisms above, runs tests and reads bulky output. */
const generatedSession = (
  seed: number
): {
  readonly transcript: Transcript.Transcript
  readonly editedBy: ReadonlyArray<{ readonly index: number; readonly path: string }>
} => {
  const next = random(seed)
  const messages: Array<Transcript.Message> = [
    new Transcript.SystemMessage({ id: "s0", content: "You are a coding agent." }),
    new Transcript.UserMessage({
      id: "u0",
      content: `Fix the ordering bug in the app (session ${seed}); keep the public API.`
    })
  ]
  const editedBy: Array<{ index: number; path: string }> = []
  let call = 0
  const turn = (text: string, name: string, args: unknown, result: string): void => {
    const id = `call_${seed}_${++call}`
    messages.push(
      new Transcript.AssistantMessage({
        id: `a${call}`,
        content: text,
        toolCalls: [new Transcript.ToolCall({ id, name, arguments: JSON.stringify(args) })]
      })
    )
    messages.push(new Transcript.ToolResult({ id: `r${call}`, toolCallId: id, name, content: result }))
  }
  const bulky = (n: number) =>
    Array.from({ length: n }, (_, i) => `    line ${i}: value = compute(${i}) # ${"x".repeat(40)}`).join("\n")
  for (let step = 0; step < 60; step++) {
    const roll = next()
    if (roll < 0.3) {
      const path = `app/module_${seed}_${Math.floor(next() * 8)}.py`
      const edit = edits[Math.floor(next() * edits.length)]!(path, `tx_${seed}${step}ab${call}`)
      editedBy.push({ index: messages.length, path })
      turn(decisions[Math.floor(next() * decisions.length)]!, edit.name, edit.args, edit.result)
    } else if (roll < 0.45) {
      const failing = next() < 0.5
      turn(
        narration[2]!,
        "bash",
        { command: "python -m pytest tests/test_ordering.py -q" },
        failing
          ? `<returncode>1</returncode>\n<output>\nFAILED tests/test_ordering.py::test_inherited_ordering - AssertionError\n1 failed, 4 passed\n</output>`
          : "<returncode>0</returncode>\n<output>\n5 passed\n</output>"
      )
    } else if (roll < 0.5) {
      turn(
        narration[3]!,
        "workspace_command",
        { action: "status", job_id: `job_${seed}${step}f00` },
        JSON.stringify({
          protocol: "agentic-workspace/v1",
          tool: "workspace_command",
          action: "status",
          ok: true,
          summary: "finished",
          data: { job: { id: `job_${seed}${step}f00`, status: "exited", executable: "make", exitCode: 0 } }
        })
      )
    } else {
      turn(narration[Math.floor(next() * 2)]!, "bash", {
        command: `cat app/module_${seed}_${Math.floor(next() * 8)}.py`
      }, `<returncode>0</returncode>\n<output>\n${bulky(30 + Math.floor(next() * 40))}\n</output>`)
    }
  }
  return { transcript: messages, editedBy }
}

// --- the probe -----------------------------------------------------------------

const summarise = (group: string, scores: ReadonlyArray<Score>): ReadonlyArray<string> => {
  const sum = (pick: (score: Score) => { readonly found: number; readonly total: number }) => {
    const found = scores.reduce((n, s) => n + pick(s).found, 0)
    const total = scores.reduce((n, s) => n + pick(s).total, 0)
    return total === 0 ? "-" : `${((100 * found) / total).toFixed(0)}% (${found}/${total})`
  }
  const tokens = scores.map((s) => s.tokens).sort((a, b) => a - b)
  const duplicated = scores.reduce((n, s) => n + s.duplicated, 0) / Math.max(1, scores.length)
  return [
    group,
    String(scores.length),
    sum((s) => s.edited),
    sum((s) => s.ids),
    `${(100 * duplicated).toFixed(1)}%`,
    String(tokens[Math.floor(tokens.length / 2)] ?? "-")
  ]
}

const rows: Array<ReadonlyArray<string>> = []

if (hasTranscripts()) {
  const scores: Array<Score> = []
  for (const { transcript } of loadTranscripts()) {
    for (const fraction of [0.6, 0.8, 1]) {
      const probe = compactOnce(transcript.slice(0, Math.floor(transcript.length * fraction)), 32_000)
      if (probe !== undefined) scores.push(score(probe, changedInSpan(transcript, probe.span)))
    }
  }
  rows.push(summarise("recorded runs (32k)", scores))
} else {
  console.error("probe: ../shared/transcripts is absent; the recorded runs are skipped")
}

const generated: Array<Score> = []
for (let seed = 1; seed <= 20; seed++) {
  const session = generatedSession(seed)
  const probe = compactOnce(session.transcript, 24_000)
  if (probe === undefined) continue
  const changed = Array.from(
    new Set(session.editedBy.filter((edit) => edit.index < probe.span.length).map((edit) => edit.path))
  )
  generated.push(score(probe, changed))
}
rows.push(summarise("generated agentic (24k)", generated))

console.log("Probe: blocks of sessions compacted mid-session, offline summariser")
printTable(["sessions", "compactions", "edited recall", "id recall", "duplicated lines", "block tokens (median)"], rows)
