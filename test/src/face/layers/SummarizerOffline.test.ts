import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as QualityGate from "../../../../src/face/engine/QualityGate.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { hasSharedFixtures, hasTranscripts, loadTranscripts, sharedFixture } from "../../../openai.js"
import { generatedSpan } from "../../../spans.js"
import { prop } from "../../../support/Property.js"

const fixture = sharedFixture

const passes = (summary: string, agentic: boolean): void => {
  const refused = Option.getOrUndefined(TestCompat.getFailure(QualityGate.check(summary, { agentic })))
  assert.isTrue(refused === undefined, refused === undefined ? "" : `${refused.reason}: ${refused.detail}\n${summary}`)
}

const sectionBody = (summary: string, heading: string): string => {
  const start = summary.indexOf(`${heading}\n`)
  const end = summary.indexOf("\n## ", start + heading.length)
  return summary.slice(start + heading.length + 1, end === -1 ? summary.length : end)
}

const agenticSpan = (): Transcript.Transcript => {
  const names = [
    "inspect-capabilities.json",
    "plan-propose.json",
    "command-output-truncated.json",
    "research-deep.json",
    "tasks-show.json",
    "edit-stage-pending.json"
  ]
  return [
    new Transcript.UserMessage({
      id: "u1",
      content: "Ship the release: stage the edits, run the tests and compare vector stores."
    }),
    ...names.flatMap((name, index) => [
      new Transcript.AssistantMessage({
        id: `a${index}`,
        content: index === names.length - 1
          ? "The fix is in src/a.ts. I'll stage the three edits for approval."
          : "Let me check the workspace.",
        toolCalls: [
          new Transcript.ToolCall({
            id: `call_${index}`,
            name: "workspace_tool",
            arguments: JSON.stringify({ action: name })
          })
        ]
      }),
      new Transcript.ToolResult({ id: `r${index}`, toolCallId: `call_${index}`, content: fixture(name) })
    ])
  ]
}

describe("SummarizerOffline.summarize", () => {
  it("writes every general section for an empty span, saying there is nothing rather than padding", () => {
    const summary = SummarizerOffline.summarize([])
    passes(summary, false)
    assert.isTrue(summary.startsWith(`${SummaryPrompt.firstHeading}\n${SummarizerOffline.none}`))
    for (const heading of SummaryPrompt.generalSections) {
      assert.include(summary, `${heading}\n${SummarizerOffline.none}`)
    }
    for (const heading of SummaryPrompt.agenticSections) assert.notInclude(summary, heading)
  })

  it("names the pinned first request, lists the decisions and points to the working state for files and errors in a small span", () => {
    const summary = SummarizerOffline.summarize([
      new Transcript.UserMessage({ id: "u1", content: "Fix the failing test in tests/test_order.py." }),
      new Transcript.AssistantMessage({
        id: "a1",
        content: "The issue is that ordering ignores the parent's Meta. Let me run the test.",
        toolCalls: [
          new Transcript.ToolCall({
            id: "c1",
            name: "bash",
            arguments: JSON.stringify({ command: "pytest tests/test_order.py" })
          })
        ]
      }),
      new Transcript.ToolResult({
        id: "r1",
        toolCallId: "c1",
        content: "<returncode>1</returncode>\n<output>\nE   AssertionError: wrong order\n</output>"
      }),
      new Transcript.UserMessage({ id: "u2", content: "Don't touch the migrations." }),
      new Transcript.AssistantMessage({ id: "a2", content: "I'll patch compiler.py next.", toolCalls: [] })
    ])
    passes(summary, false)
    // The block pins the first message whole and quotes the user's messages: the summary names them, once.
    assert.include(
      sectionBody(summary, SummaryPrompt.primaryRequest),
      "The user's first message (`u1`) is pinned whole at the top of this block"
    )
    assert.notInclude(summary, "Fix the failing test")
    assert.notInclude(summary, "Don't touch the migrations.")
    assert.include(
      sectionBody(summary, SummaryPrompt.keyDecisions),
      "- The issue is that ordering ignores the parent's Meta."
    )
    assert.notInclude(sectionBody(summary, SummaryPrompt.keyDecisions), "Let me run the test.")
    assert.include(
      sectionBody(summary, SummaryPrompt.errorsAndFixes),
      "1 failure, 0 fixed by a later run of the same command"
    )
    assert.include(sectionBody(summary, SummaryPrompt.userMessages), "1 more: `u2`")
    assert.include(sectionBody(summary, SummaryPrompt.filesAndArtifacts), "0 files changed, 1 only read")
    assert.include(sectionBody(summary, SummaryPrompt.nextStep), "I'll patch compiler.py next.")
  })

  it.skipIf(!hasSharedFixtures())(
    "writes a pending approval's exact resume call under the next step and pending approvals, and names it under open tasks",
    () => {
      const summary = SummarizerOffline.summarize(agenticSpan())
      passes(summary, true)
      const resume = "`workspace_edit {\"action\":\"commit\",\"transaction_id\":\"tx_948fa8de\"}`"
      assert.include(
        sectionBody(summary, SummaryPrompt.openTasks),
        "Approval `approval_964d95b9` (transaction): its exact resume call is under Pending approvals below."
      )
      assert.notInclude(sectionBody(summary, SummaryPrompt.openTasks), resume)
      assert.include(
        sectionBody(summary, SummaryPrompt.nextStep),
        `Wait for the user to accept approval \`approval_964d95b9\`; once accepted, re-issue: ${resume}`
      )
      assert.include(sectionBody(summary, SummaryPrompt.pendingApprovals), resume)
    }
  )

  it.skipIf(!hasSharedFixtures())(
    "writes the agentic sections from the envelopes: plans, transactions, jobs, boards, research and permissions",
    () => {
      const summary = SummarizerOffline.summarize(agenticSpan())
      assert.include(sectionBody(summary, SummaryPrompt.plans), "`plan_64c5d837`: revision `3`, status `proposed`")
      assert.include(
        sectionBody(summary, SummaryPrompt.transactions),
        "`tx_948fa8de`; files `src/a.ts`, `src/b.ts`, `src/c.ts`"
      )
      assert.include(
        sectionBody(summary, SummaryPrompt.commandsAndJobs),
        "`job_1aecb197`: executable `npm`, exit code `1`, status `exited`"
      )
      assert.include(sectionBody(summary, SummaryPrompt.taskBoards), "`todo_3e1c20bb.10` task 10")
      const research = sectionBody(summary, SummaryPrompt.agentRunsAndResearch)
      assert.include(research, "Source `source_7134f09f` (fetched content): URL `https://example.org/doc/0`")
      assert.include(research, "content at `.workspace/research/research_dddb052a/sources/0.md`")
      assert.include(research, "Search result `https://search.example/0` \"Result 0\": discovery only")
      assert.include(sectionBody(summary, SummaryPrompt.permissionsAndCapabilities), "- Permission mode: `ask`")
      assert.isBelow(summary.indexOf(SummaryPrompt.nextStep), summary.indexOf(SummaryPrompt.pendingApprovals))
    }
  )

  it.skipIf(!hasSharedFixtures())(
    "does not ask to re-issue an approval the user already answered, and says it was answered",
    () => {
      const span = [...agenticSpan(), new Transcript.UserMessage({ id: "u9", content: "/accept approval_964d95b9" })]
      const summary = SummarizerOffline.summarize(span)
      assert.notInclude(sectionBody(summary, SummaryPrompt.nextStep), "approval_964d95b9")
      assert.include(sectionBody(summary, SummaryPrompt.pendingApprovals), "the user answered it in `u9`")
    }
  )

  it.skipIf(!hasSharedFixtures())(
    "replaces a resume call past 12,000 characters of arguments by the recovery route",
    () => {
      const summary = SummarizerOffline.summarize([
        new Transcript.AssistantMessage({
          id: "a1",
          content: "",
          toolCalls: [new Transcript.ToolCall({ id: "c1", name: "workspace_edit", arguments: "{}" })]
        }),
        new Transcript.ToolResult({ id: "r1", toolCallId: "c1", content: fixture("approval-huge-resume.json") })
      ])
      passes(summary, true)
      assert.include(
        summary,
        "`workspace_inspect {\"action\":\"changes\"} (the resume arguments of approval_979a8972 pass 12000 characters; this lists them)`"
      )
      assert.isBelow(summary.length, 10_000)
    }
  )

  it("carries the sections of an earlier summary forward", () => {
    const block = new Transcript.CompactedBlock({
      id: "compacted-1",
      content:
        "## Summary of the compacted span\n\n### Primary request\nPort the CLI to Effect.\n\n### Key decisions\n- Keep the flags.\n\n## Working state",
      firstReplacedId: "m1",
      lastReplacedId: "m9"
    })
    const summary = SummarizerOffline.summarize([block])
    passes(summary, false)
    assert.include(
      sectionBody(summary, SummaryPrompt.primaryRequest),
      "From the earlier summary (`compacted-1`):\n> Port the CLI to Effect."
    )
    assert.include(sectionBody(summary, SummaryPrompt.keyDecisions), "> - Keep the flags.")
  })

  it("carries an earlier summary one quote level deep however many compactions came before it", () => {
    let content =
      "## Summary of the compacted span\n\n### Primary request\nPort the CLI to Effect.\n\n### Key decisions\n- Keep the flags."
    for (let n = 1; n <= 8; n++) {
      const block = new Transcript.CompactedBlock({
        id: `compacted-${n}`,
        content,
        firstReplacedId: "m1",
        lastReplacedId: `m${n * 10}`
      })
      const user = new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: keep porting.` })
      content = SummarizerOffline.summarize([block, user])
      passes(content, false)
    }
    const decisions = sectionBody(content, SummaryPrompt.keyDecisions)
    assert.strictEqual(decisions.split("\n").filter((line) => line.includes("From the earlier summary")).length, 1)
    assert.notMatch(content, /^>\s*>/m)
    assert.include(decisions, "> - Keep the flags.")
  })

  prop(
    "the gate accepts what it writes for any span, and it writes the same summary twice",
    [generatedSpan()],
    ([generated]) => {
      const summary = SummarizerOffline.summarize(generated.span)
      passes(summary, SummaryPrompt.isAgentic(generated.span))
      assert.strictEqual(SummarizerOffline.summarize(generated.span), summary)
    }
  )

  prop("only its own section headings start a line with #", [generatedSpan()], ([generated]) => {
    const headings = SummarizerOffline.summarize(generated.span).split("\n").filter((line) => /^\s*#/.test(line))
    const known = new Set<string>([...SummaryPrompt.generalSections, ...SummaryPrompt.agenticSections])
    for (const heading of headings) assert.isTrue(known.has(heading), heading)
    assert.deepStrictEqual(headings.slice(0, 8), [...SummaryPrompt.generalSections])
  })
})

describe("SummarizerOffline.layer", () => {
  it.effect.skipIf(!hasSharedFixtures())("summarises the span carried by the request", () =>
    Effect.gen(function*() {
      const summarizer = yield* Summarizer.Summarizer
      const span = agenticSpan()
      const request = SummaryPrompt.build(span, {
        model: "offline",
        maxTokens: 16_000,
        policies: builtInPolicies,
        envelopeCapChars: 8_000
      })
      const summary = yield* summarizer.summarize(request)
      assert.strictEqual(summary, SummarizerOffline.summarize(span))
      passes(summary, request.agentic)
    }).pipe(Effect.provide(SummarizerOffline.layer)))
})

describe.skipIf(!hasTranscripts())("SummarizerOffline on recorded transcripts", () => {
  it("summarises the first 60 messages of each transcript into a summary the gate accepts, naming the pinned first request without repeating it", () => {
    for (const { name, transcript } of loadTranscripts()) {
      const span = transcript.slice(0, 60)
      const summary = SummarizerOffline.summarize(span)
      passes(summary, false)
      const request = Transcript.firstUserMessage(span)
      assert.isDefined(request, name)
      assert.include(sectionBody(summary, SummaryPrompt.primaryRequest), `(\`${request!.id}\`) is pinned whole`, name)
      assert.notInclude(summary, request!.content.trim().split("\n")[0]!, name)
    }
  })
})
