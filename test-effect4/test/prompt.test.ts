/**
 * The summary prompt and the quality gate on Effect 4 (docs/effect4.md): `SummaryPrompt` of the
 * Effect 4 face, with effect@4 the only Effect there is, builds for several spans of the example
 * session and of every shared transcript (delimited and shared-prefix, with instructions, a custom
 * system prompt, a span budget and small caps) the requests and the retention rules' totals the
 * Effect 3 face builds, byte for byte, its tool results reduced by the Effect 4 built-in policies
 * (a request encoded with each face's `SummaryRequest` Schema, as JSON with sorted keys: the two
 * Schemas place a message's `_tag` differently); and its `QualityGate` gives every summary of
 * `test/support/PromptCases.ts` the Effect 3 verdict. The Effect 3 side is printed by
 * `test/support/Effect3Prompts.ts`, run by this test as a process of its own on the package's
 * Effect 3.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import type * as TranscriptData from "../../src/core/transcript/TranscriptData.js"
import { builtInPolicies } from "../../src/effect4/rules/index.js"
import * as QualityGate from "../../src/face/engine/QualityGate.js"
import * as SummaryPrompt from "../../src/face/engine/SummaryPrompt.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"
import { canonicalJson, gateCases, promptCases } from "../../test/support/PromptCases.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

interface Effect3Prompts {
  readonly sharedTranscripts: boolean
  readonly cases: ReadonlyArray<{
    readonly file: string
    readonly transcript: TranscriptData.Transcript
    readonly requests: ReadonlyArray<{ readonly name: string; readonly request: string; readonly ruleTotals: string }>
  }>
  readonly gate: ReadonlyArray<{ readonly name: string; readonly verdict: string; readonly restored: string }>
  readonly namespaces: string
}

const effect3: Effect3Prompts = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Prompts.ts"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024
  })
)

const decode = Schema.decodeUnknownSync(Transcript.Transcript)
const encodeRequest = Schema.encodeSync(Summarizer.SummaryRequest)
const encodeRefusal = Schema.encodeSync(QualityGate.SummaryRefused)

/** The requests the Effect 4 face builds for a case, as the Effect 3 program prints them, and the requests. */
const requestsOf = (example: Effect3Prompts["cases"][number]) => {
  const history = decode(example.transcript)
  return promptCases(history.length).map((promptCase) => {
    const span = [
      ...(promptCase.earlier === undefined ? [] : [new Transcript.CompactedBlock(promptCase.earlier)]),
      ...history.slice(promptCase.start, promptCase.end)
    ]
    const options = { ...promptCase.options, policies: builtInPolicies }
    const { request, ruleTotals } = promptCase.sharedPrefix === undefined
      ? SummaryPrompt.buildWithTotals(span, options)
      : SummaryPrompt.buildSharedPrefix(span, {
        ...options,
        prefix: history.slice(0, promptCase.sharedPrefix.prefixEnd),
        kept: promptCase.sharedPrefix.kept
      })
    return {
      printed: {
        name: promptCase.name,
        request: canonicalJson(encodeRequest(request)),
        ruleTotals: JSON.stringify(ruleTotals)
      },
      request
    }
  })
}

const verdictOf = (summary: string, agentic: boolean): string =>
  Result.match(QualityGate.check(summary, { agentic }), {
    onFailure: (refused) => canonicalJson({ refused: encodeRefusal(refused) }),
    onSuccess: (accepted) => canonicalJson({ accepted })
  })

describe("the summary prompt on Effect 4", () => {
  it("builds for spans of the example session, byte for byte, the requests and rule totals of the Effect 3 face", () => {
    const [example] = effect3.cases
    assert.strictEqual(example?.file, "examples/session/agent-session.json")
    assert.isAbove(example!.transcript.length, 100)
    const built = requestsOf(example!)
    assert.deepStrictEqual(built.map(({ printed }) => printed), example!.requests)
    // The requests are the Effect 4 face's classes, holding its messages.
    for (const { request } of built) {
      assert.instanceOf(request, Summarizer.SummaryRequest)
      assert.isTrue(request.span.every((message) => Schema.is(Transcript.Message)(message)))
    }
    const [whole, , small, instructed, custom, afterBlock, shared, sharedWhole] = built.map(({ request }) => request)
    // The cases say different things: agentic envelopes reduced, the span budget's note and an overflow, the
    // instructions neutralised, the custom prompt, the earlier summary, the shared-prefix shape.
    assert.isTrue(whole!.agentic)
    assert.include(whole!.prompt, "reduced by the agentic-workspace/v1 rules")
    assert.notEqual(built[0]!.printed.ruleTotals, "{}")
    assert.include(small!.prompt, "older message(s) of this span")
    assert.include(small!.prompt, "to its recovery fields")
    assert.strictEqual(small!.maxTokens, 1_200)
    assert.strictEqual(instructed!.instructions, "Focus on the failing tests and the </transcript> files changed.")
    assert.include(instructed!.system, "&lt;/transcript> files changed.")
    assert.strictEqual(custom!.namespace, SummaryPrompt.namespaceFor("You write terse summaries of coding sessions."))
    assert.include(afterBlock!.prompt, "role=\"earlier summary\" id=\"block-1\"")
    assert.strictEqual(shared!.prefix?.length, example!.transcript.length)
    assert.strictEqual(shared!.namespace, SummaryPrompt.sharedPrefixNamespaceFor(undefined))
    assert.isTrue(sharedWhole!.prompt.trimEnd().endsWith(SummaryPrompt.firstHeading))
    assert.strictEqual(new Set(built.map(({ printed }) => printed.request)).size, built.length)
  })

  it.skipIf(!effect3.sharedTranscripts)(
    "the same over every shared transcript (../shared/transcripts; skipped when the folder is missing)",
    () => {
      const shared = effect3.cases.slice(1)
      assert.isAbove(shared.length, 0)
      for (const example of shared) {
        assert.deepStrictEqual(requestsOf(example).map(({ printed }) => printed), example.requests, example.file)
      }
    }
  )

  it("has the Effect 3 face's namespaces", () => {
    assert.strictEqual(
      JSON.stringify([
        SummaryPrompt.namespace,
        SummaryPrompt.namespaceFor("custom"),
        SummaryPrompt.sharedPrefixNamespaceFor(undefined),
        SummaryPrompt.sharedPrefixNamespaceFor("custom")
      ]),
      effect3.namespaces
    )
  })
})

describe("the quality gate on Effect 4", () => {
  it("gives every summary, as written and with its opening restored, the Effect 3 face's verdict", () => {
    const verdicts = gateCases.map(({ agentic, name, summary }) => ({
      name,
      verdict: verdictOf(summary, agentic),
      restored: verdictOf(SummaryPrompt.restoreOpening(summary), agentic)
    }))
    assert.deepStrictEqual(verdicts, effect3.gate)
    // Each of the gate's reasons is among them, and a restored opening is accepted where the bare one is not.
    const reasons = new Set(verdicts.map(({ verdict }) => JSON.parse(verdict).refused?.reason))
    for (const reason of ["empty", "too-short", "wrong-opening", "missing-sections", undefined]) {
      assert.isTrue(reasons.has(reason), String(reason))
    }
    const restored = verdicts.find(({ name }) => name === "no heading, restored")!
    assert.include(restored.verdict, "wrong-opening")
    assert.include(restored.restored, "\"accepted\"")
  })

  it("refuses with an Effect 4 SummaryRefused, as a Result and as a failed Effect", () => {
    const refused = QualityGate.check("Done.", { agentic: false })
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.instanceOf(refused.failure, QualityGate.SummaryRefused)
      assert.strictEqual(refused.failure._tag, "SummaryRefused")
      assert.strictEqual(refused.failure.reason, "too-short")
      assert.strictEqual(refused.failure.chars, 5)
    }
    const exit = Effect.runSyncExit(QualityGate.validate("Done.", { agentic: false }))
    assert.isTrue(Exit.isFailure(exit))
    const good = gateCases[0]!.summary
    assert.strictEqual(Effect.runSync(QualityGate.validate(good, { agentic: false })), good)
  })
})
