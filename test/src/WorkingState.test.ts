import { assert, describe, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import * as Boundary from "../../src/internal/Boundary.js"
import * as Transcript from "../../src/Transcript.js"
import * as WorkingState from "../../src/WorkingState.js"
import { fromOpenAI, hasTranscripts, loadTranscripts } from "../openai.js"
import { generatedSpan } from "../spans.js"
import * as Generated from "../transcripts.js"

let counter = 0
const user = (content: string) => new Transcript.UserMessage({ id: `u${++counter}`, content })
const assistant = (content: string, ...calls: ReadonlyArray<readonly [id: string, name: string, args: unknown]>) =>
  new Transcript.AssistantMessage({
    id: `a${++counter}`,
    content,
    toolCalls: calls.map(([id, name, args]) => new Transcript.ToolCall({ id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) }))
  })
const result = (toolCallId: string, content: string) => new Transcript.ToolResult({ id: `r${++counter}`, toolCallId, content })
const bash = (id: string, command: string, output: string) => [assistant("", [id, "bash", { command }]), result(id, output)] as const

const fixture = (name: string): string => Fs.readFileSync(`/work/shared/fixtures/${name}`, "utf8")

describe("WorkingState.extract", () => {
  it("finds files written by shell redirects, tee, sed -i, touch and cat > file <<EOF, not by the here-document's body", () => {
    const state = WorkingState.extract([
      ...bash("c1", "cat > reproduce.py << 'EOF'\nprint('x') > ignored.txt\necho hi > also_ignored.txt\nEOF\npython reproduce.py", "<returncode>0</returncode>"),
      ...bash("c2", "cd /testbed && sed -i 's/a/b/g' django/db/models/sql/compiler.py", "<returncode>0</returncode>"),
      ...bash("c3", "echo done | tee -a log/run.log >/dev/null 2>&1", ""),
      ...bash("c4", "python -c \"print(1 > 0)\" >> results/out.json; touch marker.txt", ""),
      ...bash("c5", "git diff > patch.txt && cat patch.txt 2> /dev/null", "")
    ])
    assert.deepStrictEqual(state.filesWritten, ["reproduce.py", "django/db/models/sql/compiler.py", "log/run.log", "results/out.json", "marker.txt", "patch.txt"])
  })

  it("finds files written through file tools but not through their read actions", () => {
    const state = WorkingState.extract([
      assistant(
        "",
        ["c1", "str_replace_based_edit_tool", { command: "view", path: "/repo/src/view_only.ts" }],
        ["c2", "str_replace_based_edit_tool", { command: "create", path: "/repo/src/new.ts", file_text: "x" }],
        ["c3", "write_file", { file_path: "notes/plan.md", content: "y" }],
        ["c4", "read_file", { path: "README.md" }],
        ["c5", "apply_patch", { input: "*** Begin Patch\n*** Update File: src/patched.ts\n@@\n-a\n+b\n*** End Patch" }]
      )
    ])
    assert.deepStrictEqual(state.filesWritten, ["/repo/src/new.ts", "notes/plan.md", "src/patched.ts"])
    assert.includeMembers([...state.filePaths], ["/repo/src/view_only.ts", "README.md", "/repo/src/new.ts"])
    assert.strictEqual(state.unfinishedCalls.length, 5)
  })

  it("reads exit codes from returncode tags, exit-code sentences and envelopes", () => {
    const state = WorkingState.extract([
      ...bash("c1", "npm test", "<returncode>1</returncode>\n<output>\nFAIL\n</output>"),
      ...bash("c2", "make", "build finished\nexit code 2"),
      ...bash("c3", "ls", "Exit code: 0"),
      ...bash("c4", "pytest -q", "3 passed"),
      assistant("", ["c5", "workspace_command", { action: "status", job_id: "job_1aecb197" }]),
      result("c5", fixture("command-output-truncated.json"))
    ])
    assert.deepStrictEqual(
      state.commands.map((command) => [command.command, command.status, command.exitCode]),
      [["npm test", "exited", 1], ["make", "exited", 2], ["ls", "exited", 0], ["pytest -q", "unknown", null], ["npm (job_1aecb197)", "exited", 1]]
    )
  })

  it("keeps the last 20 commands, oldest first", () => {
    const span = Array.from({ length: 30 }, (_, i) => bash(`c${i}`, `echo ${i}`, "<returncode>0</returncode>")).flat()
    const state = WorkingState.extract(span)
    assert.strictEqual(state.commands.length, WorkingState.recentCommandLimit)
    assert.strictEqual(state.commands[0]!.command, "echo 10")
    assert.strictEqual(state.commands[19]!.command, "echo 29")
  })

  it("records failures with the tool, the call and the error line, and not grep's exit 1", () => {
    const state = WorkingState.extract([
      ...bash("c1", "python app.py", "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"app.py\", line 3\n    x()\nNameError: name 'x' is not defined\n</output>"),
      ...bash("c2", "grep -n missing src/*.ts", "<returncode>1</returncode>\n<output>\n</output>"),
      assistant("", ["c3", "read_file", { path: "missing.json" }]),
      result("c3", "Error: ENOENT: no such file or directory"),
      assistant("", ["c4", "workspace_research", { action: "deep" }]),
      result("c4", JSON.stringify({ protocol: "agentic-workspace/v1", tool: "workspace_research", action: "deep", ok: false, summary: "web access is off" }))
    ])
    assert.deepStrictEqual(
      state.failures.map((failure) => [failure.tool, failure.toolCallId, failure.message, failure.exitCode]),
      [
        ["bash", "c1", "NameError: name 'x' is not defined", 1],
        ["read_file", "c3", "Error: ENOENT: no such file or directory", null],
        ["workspace_research", "c4", "web access is off", null]
      ]
    )
  })

  it("takes files of staged transactions, artifacts of envelopes and results, and pending approvals as unfinished", () => {
    const state = WorkingState.extract([
      user("stage it"),
      assistant("", ["c1", "workspace_edit", { action: "stage" }], ["c2", "workspace_plan", { action: "propose" }], ["c3", "run_script", { script: "gen" }]),
      result("c1", fixture("edit-stage-pending.json")),
      result("c2", fixture("plan-propose.json")),
      result("c3", "Saved the report to reports/summary.html")
    ])
    assert.deepStrictEqual(state.filesWritten, ["src/a.ts", "src/b.ts", "src/c.ts"])
    assert.deepStrictEqual(state.artifacts, [".workspace/plans/current.md", "reports/summary.html"])
    assert.deepStrictEqual(state.unfinishedCalls, ["c1"])
    assert.deepStrictEqual(state.toolsUsed.map((use) => [use.name, use.count]), [["workspace_edit", 1], ["workspace_plan", 1], ["run_script", 1]])
  })

  it("lists protected ids in order of first appearance, not identifiers such as run_from_argv or plan_id", () => {
    const state = WorkingState.extract([
      user("Resume tx_948fa8de, then look at run_from_argv in the code."),
      assistant("", ["c1", "workspace_edit", { action: "show", transaction_id: "tx_948fa8de" }]),
      result("c1", fixture("plan-propose.json"))
    ])
    assert.deepStrictEqual(state.protectedIds, ["tx_948fa8de", "plan_64c5d837", "plan_121ec31d"])
  })

  it("never throws on broken arguments, odd shapes and huge contents", () => {
    const state = WorkingState.extract([
      assistant("x", ["c1", "bash", "{not json"], ["c2", "bash", "ls -la > listing.txt"], ["c3", "write_file", "[1,2"], ["c4", "shell", { command: ["bash", "-lc", "echo hi > hi.txt"] }]),
      result("c1", "{".repeat(100_000)),
      result("c2", "x".repeat(2_000_000)),
      result("c9", "orphan result"),
      new Transcript.CompactedBlock({ id: "k", content: "earlier job_00aa11bb", firstReplacedId: "a", lastReplacedId: "b" })
    ])
    assert.deepStrictEqual(state.filesWritten, ["listing.txt", "hi.txt"])
    assert.deepStrictEqual(state.protectedIds, ["job_00aa11bb"])
  })

  it.prop("every protected id planted in a span is in protectedIds", [generatedSpan()], ([generated]) => {
    const state = WorkingState.extract(generated.span)
    for (const id of generated.ids) assert.include(state.protectedIds, id)
  })

  it.prop("the state survives encoding and decoding unchanged", [generatedSpan(8)], ([generated]) => {
    const state = WorkingState.extract(generated.span)
    const decoded = Schema.decodeUnknownSync(WorkingState.WorkingState)(Schema.encodeSync(WorkingState.WorkingState)(state))
    assert.deepStrictEqual(decoded, state)
  })

  it.prop("every call without a result is unfinished", [generatedSpan()], ([generated]) => {
    const state = WorkingState.extract(generated.span)
    const answered = new Set(generated.span.flatMap((message) => (message._tag === "ToolResult" ? [message.toolCallId] : [])))
    const calls = generated.span.flatMap((message) => (message._tag === "Assistant" ? message.toolCalls.map((call) => call.id) : []))
    for (const id of calls) if (!answered.has(id)) assert.include(state.unfinishedCalls, id)
  })
})

describe("WorkingState.render", () => {
  it("renders the empty state as nothing", () => {
    assert.strictEqual(WorkingState.render(WorkingState.empty), "")
  })

  it("renders only the parts that have entries, as markdown subsections", () => {
    const text = WorkingState.render(WorkingState.extract([...bash("c1", "cat > a.py <<EOF\nx\nEOF", "<returncode>0</returncode>")]))
    assert.include(text, "### Files written\n- `a.py`")
    assert.include(text, "### Recent commands\n- `cat > a.py <<EOF … (3 lines)` — exit 0 (bash, call `c1`)")
    assert.include(text, "### Tools used\nbash ×1")
    assert.notInclude(text, "### Failures")
    assert.notInclude(text, "### Artifacts")
  })

  it("quotes text with backticks in a longer code span, padded where it touches a backtick", () => {
    assert.strictEqual(WorkingState.inlineCode("echo `date`"), "`` echo `date` ``")
    assert.strictEqual(WorkingState.inlineCode("a\nb"), "`a b`")
  })
})

describe.skipIf(!hasTranscripts())("WorkingState on recorded transcripts", () => {
  it("extracts the files written and the failures of each transcript", () => {
    for (const { name, transcript } of loadTranscripts()) {
      const state = WorkingState.extract(transcript)
      assert.isAbove(state.filesWritten.length, 0, name)
      assert.isAtMost(state.commands.length, WorkingState.recentCommandLimit, name)
      assert.notInclude(state.protectedIds, "run_from_argv", name)
      assert.isTrue(state.toolsUsed.some((use) => use.name === "bash"), name)
    }
  })

  it("maps OpenAI tool messages to results named after their call", () => {
    const [first] = fromOpenAI([
      { role: "assistant", content: null, tool_calls: [{ id: "x", function: { name: "bash", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "x", content: "ok" }
    ]).slice(1)
    assert.strictEqual(first?._tag === "ToolResult" ? first.name : undefined, "bash")
  })
})

/** What `extend` is told of a whole history. */
const historyOf = (transcript: Transcript.Transcript): WorkingState.History => {
  const results = new Map<string, Transcript.ToolResult>()
  for (const message of transcript) if (message._tag === "ToolResult" && !results.has(message.toolCallId)) results.set(message.toolCallId, message)
  return {
    stillPending: new Set(Boundary.pendingApprovals(transcript).map((pending) => pending.toolCallId)),
    resultOf: (id) => results.get(id)
  }
}

describe("WorkingState.extend", () => {
  it.prop(
    "the state of an earlier span extended by the next one, cut at turn starts as the engine cuts, equals the state extracted from both at once",
    [Generated.transcript(16), fc.nat(), fc.nat()],
    ([transcript, a, b]) => {
      const cuts = [0, ...Boundary.turnStarts(transcript), transcript.length]
      const [first, second] = [cuts[a % cuts.length]!, cuts[b % cuts.length]!].sort((x, y) => x - y) as [number, number]
      const whole = WorkingState.extract(transcript)
      const once = WorkingState.extend(WorkingState.extract(transcript.slice(0, first)), transcript.slice(first), historyOf(transcript))
      assert.deepStrictEqual(once, whole)
      // Extended twice, as a session compacted three times would be.
      const twice = WorkingState.extend(
        WorkingState.extend(WorkingState.extract(transcript.slice(0, first)), transcript.slice(first, second), historyOf(transcript.slice(0, second))),
        transcript.slice(second),
        historyOf(transcript)
      )
      assert.deepStrictEqual(twice, whole)
    },
    { fastCheck: { numRuns: 200 } }
  )
})
