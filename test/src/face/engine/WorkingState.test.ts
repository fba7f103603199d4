import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as WorkingState from "../../../../src/face/engine/WorkingState.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { fromOpenAI, hasSharedFixtures, hasTranscripts, loadTranscripts, sharedFixture } from "../../../openai.js"
import { generatedSpan } from "../../../spans.js"
import { prop } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

let counter = 0
const user = (content: string) => new Transcript.UserMessage({ id: `u${++counter}`, content })
const assistant = (content: string, ...calls: ReadonlyArray<readonly [id: string, name: string, args: unknown]>) =>
  new Transcript.AssistantMessage({
    id: `a${++counter}`,
    content,
    toolCalls: calls.map(([id, name, args]) =>
      new Transcript.ToolCall({ id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) })
    )
  })
const result = (toolCallId: string, content: string) =>
  new Transcript.ToolResult({ id: `r${++counter}`, toolCallId, content })
const bash = (id: string, command: string, output: string) =>
  [assistant("", [id, "bash", { command }]), result(id, output)] as const

const fixture = sharedFixture

describe("WorkingState.extract", () => {
  it("finds files written by shell redirects, tee, sed -i, touch and cat > file <<EOF, not by the here-document's body", () => {
    const state = WorkingState.extract([
      ...bash(
        "c1",
        "cat > reproduce.py << 'EOF'\nprint('x') > ignored.txt\necho hi > also_ignored.txt\nEOF\npython reproduce.py",
        "<returncode>0</returncode>"
      ),
      ...bash("c2", "cd /testbed && sed -i 's/a/b/g' django/db/models/sql/compiler.py", "<returncode>0</returncode>"),
      ...bash("c3", "echo done | tee -a log/run.log >/dev/null 2>&1", ""),
      ...bash("c4", "python -c \"print(1 > 0)\" >> results/out.json; touch marker.txt", ""),
      ...bash("c5", "git diff > patch.txt && cat patch.txt 2> /dev/null", "")
    ])
    assert.deepStrictEqual(state.filesWritten, [
      "reproduce.py",
      "django/db/models/sql/compiler.py",
      "log/run.log",
      "results/out.json",
      "marker.txt",
      "patch.txt"
    ])
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

  it.skipIf(!hasSharedFixtures())("reads exit codes from returncode tags, exit-code sentences and envelopes", () => {
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
      [["npm test", "exited", 1], ["make", "exited", 2], ["ls", "exited", 0], ["pytest -q", "unknown", null], [
        "npm (job_1aecb197)",
        "exited",
        1
      ]]
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
      ...bash(
        "c1",
        "python app.py",
        "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"app.py\", line 3\n    x()\nNameError: name 'x' is not defined\n</output>"
      ),
      ...bash("c2", "grep -n missing src/*.ts", "<returncode>1</returncode>\n<output>\n</output>"),
      assistant("", ["c3", "read_file", { path: "missing.json" }]),
      result("c3", "Error: ENOENT: no such file or directory"),
      assistant("", ["c4", "workspace_research", { action: "deep" }]),
      result(
        "c4",
        JSON.stringify({
          protocol: "agentic-workspace/v1",
          tool: "workspace_research",
          action: "deep",
          ok: false,
          summary: "web access is off"
        })
      )
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

  it.skipIf(!hasSharedFixtures())(
    "takes files of staged transactions, artifacts of envelopes and results, and pending approvals as unfinished",
    () => {
      const state = WorkingState.extract([
        user("stage it"),
        assistant("", ["c1", "workspace_edit", { action: "stage" }], ["c2", "workspace_plan", { action: "propose" }], [
          "c3",
          "run_script",
          { script: "gen" }
        ]),
        result("c1", fixture("edit-stage-pending.json")),
        result("c2", fixture("plan-propose.json")),
        result("c3", "Saved the report to reports/summary.html")
      ])
      assert.deepStrictEqual(state.filesWritten, ["src/a.ts", "src/b.ts", "src/c.ts"])
      assert.deepStrictEqual(state.artifacts, [".workspace/plans/current.md", "reports/summary.html"])
      assert.deepStrictEqual(state.unfinishedCalls, ["c1"])
      assert.deepStrictEqual(state.toolsUsed.map((use) => [use.name, use.count]), [["workspace_edit", 1], [
        "workspace_plan",
        1
      ], ["run_script", 1]])
    }
  )

  it.skipIf(!hasSharedFixtures())(
    "lists protected ids in order of first appearance, not identifiers such as run_from_argv or plan_id",
    () => {
      const state = WorkingState.extract([
        user("Resume tx_948fa8de, then look at run_from_argv in the code."),
        assistant("", ["c1", "workspace_edit", { action: "show", transaction_id: "tx_948fa8de" }]),
        result("c1", fixture("plan-propose.json"))
      ])
      assert.deepStrictEqual(state.protectedIds, ["tx_948fa8de", "plan_64c5d837", "plan_121ec31d"])
    }
  )

  it("never throws on broken arguments, odd shapes and huge contents", () => {
    const state = WorkingState.extract([
      assistant(
        "x",
        ["c1", "bash", "{not json"],
        ["c2", "bash", "ls -la > listing.txt"],
        ["c3", "write_file", "[1,2"],
        ["c4", "shell", { command: ["bash", "-lc", "echo hi > hi.txt"] }]
      ),
      result("c1", "{".repeat(100_000)),
      result("c2", "x".repeat(2_000_000)),
      result("c9", "orphan result"),
      new Transcript.CompactedBlock({
        id: "k",
        content: "earlier job_00aa11bb",
        firstReplacedId: "a",
        lastReplacedId: "b"
      })
    ])
    assert.deepStrictEqual(state.filesWritten, ["listing.txt", "hi.txt"])
    assert.deepStrictEqual(state.protectedIds, ["job_00aa11bb"])
  })

  prop("every protected id planted in a span is in protectedIds", [generatedSpan()], ([generated]) => {
    const state = WorkingState.extract(generated.span)
    for (const id of generated.ids) assert.include(state.protectedIds, id)
  })

  prop("the state survives encoding and decoding unchanged", [generatedSpan(8)], ([generated]) => {
    const state = WorkingState.extract(generated.span)
    const decoded = Schema.decodeUnknownSync(WorkingState.WorkingState)(
      Schema.encodeSync(WorkingState.WorkingState)(state)
    )
    assert.deepStrictEqual(decoded, state)
  })

  prop("every call without a result is unfinished", [generatedSpan()], ([generated]) => {
    const state = WorkingState.extract(generated.span)
    const answered = new Set(
      generated.span.flatMap((message) => (message._tag === "ToolResult" ? [message.toolCallId] : []))
    )
    const calls = generated.span.flatMap((
      message
    ) => (message._tag === "Assistant" ? message.toolCalls.map((call) => call.id) : []))
    for (const id of calls) if (!answered.has(id)) assert.include(state.unfinishedCalls, id)
  })
})

describe("WorkingState.render", () => {
  it("renders the empty state as nothing", () => {
    assert.strictEqual(WorkingState.render(WorkingState.empty), "")
  })

  it("renders only the parts that have entries, as markdown subsections", () => {
    const text = WorkingState.render(
      WorkingState.extract([...bash("c1", "cat > a.py <<EOF\nx\nEOF", "<returncode>0</returncode>")])
    )
    assert.include(text, "### Files\n- `a.py` — written via `redirect >` (call `c1`)")
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

/** What `extend` is told of a whole history, the earlier span being its first `before` messages. */
const historyOf = (transcript: Transcript.Transcript, before = 0): WorkingState.History => {
  const results = new Map<string, Transcript.ToolResult>()
  for (const message of transcript) {
    if (message._tag === "ToolResult" && !results.has(message.toolCallId)) results.set(message.toolCallId, message)
  }
  return {
    stillPending: new Set(Boundary.pendingApprovals(transcript).map((pending) => pending.toolCallId)),
    resultOf: (id) => results.get(id),
    scripts: WorkingState.scriptsWritten(transcript.slice(0, before))
  }
}

/** A fix through a script: written from a here-document, run some turns later, the file then named by git diff. */
const scriptedFix = (filler: number): Transcript.Transcript => [
  ...bash(
    "s1",
    "cat > /tmp/fix.py << 'EOF'\nimport re\nwith open('./pkg/mod.py') as f:\n    s = f.read()\ns = re.sub(r'old', 'new', s)\nwith open('./pkg/mod.py', 'w') as f:\n    f.write(s)\nEOF",
    "<returncode>0</returncode>"
  ),
  ...Array.from(
    { length: filler },
    (_, k) => bash(`f${k}`, `grep -n old pkg/other${k}.py`, "<returncode>1</returncode>")
  ).flat(),
  ...bash("s2", "python /tmp/fix.py", "<returncode>0</returncode>"),
  ...bash(
    "s3",
    "git diff -- pkg/mod.py",
    "<returncode>0</returncode>\n<output>\ndiff --git a/pkg/mod.py b/pkg/mod.py\n-old\n+new\n</output>"
  )
]

describe("WorkingState.extend", () => {
  prop(
    "the state of an earlier span extended by the next one, cut at turn starts as the engine cuts, equals the state extracted from both at once",
    [Generated.transcript(16), fc.nat(), fc.nat()],
    ([transcript, a, b]) => {
      const cuts = [0, ...Boundary.turnStarts(transcript), transcript.length]
      const [first, second] = [cuts[a % cuts.length]!, cuts[b % cuts.length]!].sort((x, y) => x - y) as [number, number]
      const whole = WorkingState.extract(transcript)
      const once = WorkingState.extend(
        WorkingState.extract(transcript.slice(0, first)),
        transcript.slice(first),
        historyOf(transcript, first)
      )
      assert.deepStrictEqual(once, whole)
      // Extended twice, as a session compacted three times would be.
      const twice = WorkingState.extend(
        WorkingState.extend(
          WorkingState.extract(transcript.slice(0, first)),
          transcript.slice(first, second),
          historyOf(transcript.slice(0, second), first)
        ),
        transcript.slice(second),
        historyOf(transcript, second)
      )
      assert.deepStrictEqual(twice, whole)
    },
    { fastCheck: { numRuns: 200 } }
  )

  prop(
    "a script written from a here-document in one span and run in a later one edits what it opens: extended at any turn start, the state equals the whole's and names pkg/mod.py as edited",
    [fc.integer({ min: 0, max: 4 }), fc.nat()],
    ([filler, at]) => {
      const transcript = scriptedFix(filler)
      const cuts = Boundary.turnStarts(transcript)
      const cut = cuts[at % cuts.length]!
      const whole = WorkingState.extract(transcript)
      assert.deepInclude(whole.edits.find((edit) => edit.path === "pkg/mod.py"), {
        action: "edited",
        via: "python /tmp/fix.py",
        toolCallId: "s2"
      })
      const extended = WorkingState.extend(
        WorkingState.extract(transcript.slice(0, cut)),
        transcript.slice(cut),
        historyOf(transcript, cut)
      )
      assert.deepStrictEqual(extended, whole)
    }
  )
})

describe("WorkingState edits", () => {
  const editOf = (state: WorkingState.WorkingState, path: string) => state.edits.find((edit) => edit.path === path)

  it("records edits made through sed -i, perl -pi, python heredocs and -c, redirects, tee, cp, git checkout/restore, with how", () => {
    const state = WorkingState.extract([
      ...bash("c1", "cd /testbed && sed -i 's/a/b/' django/db/models/query.py", "<returncode>0</returncode>"),
      ...bash("c2", "perl -pi -e 's/\\bfoo\\b/bar/g' lib/util.pl", "<returncode>0</returncode>"),
      ...bash(
        "c3",
        "python3 - <<'EOF'\nimport re\np = 'django/utils/text.py'\ns = open(p).read()\nwith open(p, 'w') as f:\n    f.write(s)\nEOF",
        "<returncode>0</returncode>"
      ),
      ...bash(
        "c4",
        "python -c \"from pathlib import Path; Path('setup.cfg').write_text('x')\"",
        "<returncode>0</returncode>"
      ),
      ...bash("c5", "echo x >> notes/log.md && printf y | tee out/report.txt", "<returncode>0</returncode>"),
      ...bash(
        "c6",
        "git checkout -- django/db/models/sql/compiler.py && git restore tests/test_x.py",
        "<returncode>0</returncode>"
      ),
      ...bash("c7", "cp /tmp/fixed.py src/fixed.py", "<returncode>0</returncode>")
    ])
    assert.deepInclude(editOf(state, "django/db/models/query.py"), {
      action: "edited",
      via: "sed -i",
      toolCallId: "c1",
      times: 1
    })
    assert.deepInclude(editOf(state, "lib/util.pl"), { action: "edited", via: "perl -pi" })
    // The script reads the file and writes it back: an edit.
    assert.deepInclude(editOf(state, "django/utils/text.py"), {
      action: "edited",
      via: "python heredoc",
      toolCallId: "c3"
    })
    assert.deepInclude(editOf(state, "setup.cfg"), { action: "written", via: "python -c" })
    assert.deepInclude(editOf(state, "notes/log.md"), { action: "edited", via: "redirect >>" })
    assert.deepInclude(editOf(state, "out/report.txt"), { action: "written", via: "tee" })
    assert.deepInclude(editOf(state, "django/db/models/sql/compiler.py"), { action: "restored", via: "git checkout" })
    assert.deepInclude(editOf(state, "tests/test_x.py"), { action: "restored", via: "git restore" })
    assert.deepInclude(editOf(state, "src/fixed.py"), { action: "written", via: "cp" })
    assert.deepStrictEqual([...state.filesWritten], state.edits.map((edit) => edit.path))
  })

  it("a script written by a here-document, run by python, then named by git diff: the block names pkg/mod.py as edited, once, not as read only", () => {
    const state = WorkingState.extract(scriptedFix(1))
    assert.deepInclude(editOf(state, "pkg/mod.py"), {
      action: "edited",
      via: "python /tmp/fix.py",
      toolCallId: "s2",
      times: 1
    })
    assert.isUndefined(editOf(state, "./pkg/mod.py"))
    const block = WorkingState.render(state)
    assert.match(block, /^- `pkg\/mod\.py` — edited via `python \/tmp\/fix\.py`/m)
    assert.notMatch(block, /Read only:.*pkg\/mod\.py/)
  })

  it("a python script that writes a file it did not read writes it; one that reads it first edits it", () => {
    const state = WorkingState.extract([
      ...bash("c1", "python - <<'EOF'\nopen('out/new.txt', 'w').write('x')\nEOF", "<returncode>0</returncode>"),
      ...bash(
        "c2",
        "python - <<'EOF'\nfrom pathlib import Path\np = Path('src/a.py')\np.write_text(p.read_text().replace('a', 'b'))\nEOF",
        "<returncode>0</returncode>"
      ),
      ...bash(
        "c3",
        "python -c \"s=open('src/b.py', encoding='utf-8').read(); open('src/b.py','w').write(s)\"",
        "<returncode>0</returncode>"
      )
    ])
    assert.deepInclude(editOf(state, "out/new.txt"), { action: "written" })
    assert.deepInclude(editOf(state, "src/a.py"), { action: "edited" })
    assert.deepInclude(editOf(state, "src/b.py"), { action: "edited" })
  })

  it("records patches applied from here-documents and those the output of git apply or patch names, not a python script that only reads", () => {
    const state = WorkingState.extract([
      ...bash(
        "c1",
        "cat <<'EOF' | git apply\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\nEOF",
        "<returncode>0</returncode>"
      ),
      ...bash(
        "c2",
        "git apply /tmp/fix.diff",
        "<returncode>0</returncode>\n<output>\nApplied patch src/b.py cleanly.\n</output>"
      ),
      ...bash(
        "c3",
        "patch -p1 < /tmp/fix.patch",
        "<returncode>0</returncode>\n<output>\npatching file src/c.py\n</output>"
      ),
      ...bash(
        "c4",
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/d.py\n@@\n-a\n+b\n*** End Patch\nEOF",
        "Done"
      ),
      ...bash("c5", "python - <<'EOF'\nprint(open('src/e.py').read())\nEOF", "<returncode>0</returncode>")
    ])
    assert.deepInclude(editOf(state, "src/a.py"), { action: "patched", via: "git apply", toolCallId: "c1" })
    assert.deepInclude(editOf(state, "src/b.py"), { action: "patched", via: "git apply", toolCallId: "c2" })
    assert.deepInclude(editOf(state, "src/c.py"), { action: "patched", via: "patch", toolCallId: "c3" })
    assert.deepInclude(editOf(state, "src/d.py"), { action: "patched", toolCallId: "c4" })
    assert.isUndefined(editOf(state, "src/e.py"))
  })

  it("records editor tool calls and workspace transactions with the tool, its verb and the transaction", () => {
    const state = WorkingState.extract([
      assistant(
        "",
        ["c1", "str_replace_editor", { command: "str_replace", path: "/testbed/a.py", old_str: "x", new_str: "y" }],
        ["c2", "str_replace_editor", { command: "view", path: "/testbed/b.py" }],
        ["c3", "edit_file", { target_file: "src/c.ts", code_edit: "z" }],
        ["c4", "write_file", { file_path: "src/d.ts", content: "w" }],
        ["c5", "workspace_edit", { action: "commit", transaction_id: "tx_948fa8de" }]
      ),
      result(
        "c5",
        JSON.stringify({
          protocol: "agentic-workspace/v1",
          tool: "workspace_edit",
          action: "commit",
          ok: true,
          summary: "Committed",
          data: { transaction: { id: "tx_948fa8de", status: "committed", files: ["src/e.ts"] } }
        })
      )
    ])
    assert.deepInclude(editOf(state, "/testbed/a.py"), { action: "edited", via: "str_replace_editor str_replace" })
    assert.isUndefined(editOf(state, "/testbed/b.py"))
    assert.deepInclude(editOf(state, "src/c.ts"), { action: "edited", via: "edit_file" })
    assert.deepInclude(editOf(state, "src/d.ts"), { action: "written", via: "write_file" })
    assert.deepInclude(editOf(state, "src/e.ts"), {
      action: "edited",
      via: "transaction tx_948fa8de",
      toolCallId: "c5"
    })
  })

  it("says where the work stands: the latest test run, its failing tests, the files changed since the last passing run", () => {
    const state = WorkingState.extract([
      ...bash("c1", "sed -i 's/a/b/' src/one.py", "<returncode>0</returncode>"),
      ...bash("c2", "python -m pytest tests -q", "<returncode>0</returncode>\n<output>\n3 passed\n</output>"),
      ...bash("c3", "sed -i 's/b/c/' src/two.py", "<returncode>0</returncode>"),
      ...bash(
        "c4",
        "python -m pytest tests -q",
        "<returncode>1</returncode>\n<output>\nFAILED tests/test_two.py::test_order - AssertionError\nFAILED tests/test_two.py::test_pk\n</output>"
      ),
      ...bash("c5", "ls", "<returncode>0</returncode>")
    ])
    const standing = state.standing!
    assert.strictEqual(standing.lastTestRun?.toolCallId, "c4")
    assert.strictEqual(standing.lastTestRun?.exitCode, 1)
    assert.deepStrictEqual(standing.failingTests, ["tests/test_two.py::test_order", "tests/test_two.py::test_pk"])
    assert.strictEqual(standing.lastPassingRun, "c2")
    assert.deepStrictEqual(standing.changedSinceLastPass, ["src/two.py"])
    assert.strictEqual(standing.lastCommand?.toolCallId, "c5")
    const text = WorkingState.render(state)
    assert.include(
      text,
      "### Where the work stands\n- Latest test run: `python -m pytest tests -q` — exit 1 (call `c4`)"
    )
    assert.include(text, "- Failing in it: `tests/test_two.py::test_order`, `tests/test_two.py::test_pk`")
    assert.include(text, "- Changed since the last passing run (call `c2`): `src/two.py`")
  })

  it("says a failure was fixed when a later run of the same command exited 0, once, under Errors", () => {
    const state = WorkingState.extract([
      ...bash(
        "c1",
        "python reproduce.py",
        "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\nValueError: bad\n</output>"
      ),
      ...bash("c2", "python reproduce.py", "<returncode>0</returncode>")
    ])
    assert.strictEqual(state.failures[0]!.fixedBy, "c2")
    const text = WorkingState.render(state)
    assert.include(
      text,
      "### Errors\n- `python reproduce.py` — exit 1 (bash, call `c1`): `ValueError: bad`. Fixed: the same command exited 0 in call `c2`"
    )
    assert.strictEqual(text.split("ValueError: bad").length, 2)
  })

  prop("a file's edit count is the number of calls that edited it, and filesWritten lists the edited files", [
    fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(
          (path: string) => `sed -i 's/a/b/' ${path}`,
          (path: string) => `echo x > ${path}`,
          (path: string) => `perl -pi -e 's/a/b/' ${path}`,
          (path: string) => `python -c "open('${path}', 'a').write('x')"`
        )
      ),
      { maxLength: 12 }
    )
  ], ([steps]) => {
    const span = steps.flatMap(([file, command], index) =>
      bash(`c${index}`, command(`src/f${file}.py`), "<returncode>0</returncode>")
    )
    const state = WorkingState.extract(span)
    for (let file = 0; file <= 3; file++) {
      const times = steps.filter(([f]) => f === file).length
      assert.strictEqual(state.edits.find((edit) => edit.path === `src/f${file}.py`)?.times ?? 0, times)
    }
    assert.deepStrictEqual(new Set(state.filesWritten), new Set(state.edits.map((edit) => edit.path)))
  })

  prop(
    "short of room for a line per file, the files written are all listed on one line, newest first, and the details are said to be left out",
    [fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 2, maxLength: 12 })],
    ([files]) => {
      const span = files.flatMap((file, index) =>
        bash(`c${index}`, `sed -i 's/a/b/' src/module${file}/file${file}.py`, "<returncode>0</returncode>")
      )
      const state = WorkingState.extract(span)
      const tokens = (text: string) => Math.ceil(text.length / 4)
      const whole = WorkingState.render(state)
      const perFile = whole.split("\n").filter((line) => line.includes(" — edited"))
      assert.strictEqual(perFile.length, files.length)
      // A budget that holds every path once, but not a line per file with how and by which call.
      const paths = files.map((file) => `src/module${file}/file${file}.py`)
      const maxTokens =
        tokens(`### Files\n- Changed (newest first): ${paths.map((path) => `\`${path}\``).join(", ")}`) + 4
      assert.isAbove(perFile.reduce((sum, line) => sum + tokens(line) + 1, 0), maxTokens)
      const bounded = WorkingState.render(state, { maxTokens, tokens })
      const line = bounded.split("\n").find((l) => l.startsWith("- Changed (newest first): "))
      assert.isDefined(line, bounded)
      assert.deepStrictEqual(
        line!.slice("- Changed (newest first): ".length).split(", "),
        [...paths].reverse().map((path) => `\`${path}\``)
      )
      assert.include(bounded, "files' details (how and by which call)")
    }
  )

  prop(
    "rendered within a budget, the working state keeps the sections in order of value and says what it left out",
    [Generated.transcript(30), fc.integer({ min: 50, max: 3_000 })],
    ([transcript, maxTokens]) => {
      const state = WorkingState.extract(transcript)
      const tokens = (text: string) => Math.ceil(text.length / 4)
      const whole = WorkingState.render(state)
      const bounded = WorkingState.render(state, { maxTokens, tokens })
      const body = bounded.split("\n\n### Left out for the budget")[0]!
      // Each line costs its tokens and one for its newline; the notes of lists cut at their limit come on top.
      const cost = body.split("\n").filter((line) => line !== "" && !/^- … and \d+ earlier$/.test(line)).reduce(
        (sum, line) => sum + tokens(line.replace(/ \(and \d+ earlier ones, in the verbatim transcript\)$/, "")) + 1,
        0
      )
      assert.isAtMost(cost, maxTokens)
      assert.isAtMost(bounded.length, whole.length + 200)
      if (bounded !== whole) assert.include(bounded, "### Left out for the budget")
      const order = [
        "Unfinished calls",
        "Protected ids",
        "Files",
        "Errors",
        "Where the work stands",
        "Recent commands",
        "Artifacts",
        "Tools used"
      ]
      const positions = order.map((heading) => bounded.indexOf(`### ${heading}\n`)).filter((index) => index !== -1)
      assert.deepStrictEqual(positions, [...positions].sort((a, b) => a - b))
    }
  )
})
