import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as QualityGate from "../../../../src/face/engine/QualityGate.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import { prop } from "../../../support/Property.js"

const body = "The user asked to fix the ordering of inherited models; the fix compares attnames in compiler.py."

/** A summary with the given general sections, each with a body, opening with the first heading. */
const summaryWith = (sections: ReadonlyArray<string>, filler = body): string =>
  sections.map((heading) => `${heading}\n${filler}`).join("\n\n")

const complete = summaryWith(SummaryPrompt.generalSections)

const refusal = (summary: string, agentic = false): QualityGate.SummaryRefused | undefined =>
  Compat.matchResult(QualityGate.check(summary, { agentic }), {
    onFailure: (refused) => refused,
    onSuccess: () => undefined
  })

describe("QualityGate", () => {
  it("accepts a complete summary and returns it unchanged", () => {
    assert.deepStrictEqual(QualityGate.check(complete, { agentic: false }), Compat.Result.succeed(complete))
    assert.deepStrictEqual(
      QualityGate.check(`\n  ${complete}`, { agentic: true }),
      Compat.Result.succeed(`\n  ${complete}`)
    )
  })

  it("refuses the seed's 61-character next-action sentence as too short", () => {
    const reply = "The output got truncated. Let me re-run the remaining checks."
    const refused = refusal(reply)
    assert.strictEqual(refused?.reason, "too-short")
    assert.strictEqual(refused?.chars, 61)
    assert.include(refused?.detail ?? "", "61 characters")
  })

  it("refuses a summary that opens with prose before the first heading", () => {
    const refused = refusal(`Here is the summary.\n\n${complete}`)
    assert.strictEqual(refused?.reason, "wrong-opening")
    assert.include(refused?.detail ?? "", "Here is the summary.")
  })

  it("names the missing sections, and for an agentic summary the agentic ones it lacks", () => {
    const refused = refusal(
      summaryWith([SummaryPrompt.primaryRequest, SummaryPrompt.keyDecisions, SummaryPrompt.nextStep], body.repeat(3)),
      true
    )
    assert.strictEqual(refused?.reason, "missing-sections")
    assert.deepStrictEqual(refused?.missingSections, [
      SummaryPrompt.filesAndArtifacts,
      SummaryPrompt.errorsAndFixes,
      SummaryPrompt.userMessages,
      SummaryPrompt.openTasks,
      SummaryPrompt.currentWork
    ])
    assert.include(refused?.detail ?? "", "## Files and artifacts")
    assert.include(refused?.detail ?? "", "## Pending approvals")
  })

  it("accepts headings at another level, in another case, bold or with a colon", () => {
    const styled = [
      "## Primary request",
      body,
      "### key decisions:",
      body,
      "## **Files and artifacts**",
      body,
      "# ERRORS AND FIXES",
      body,
      "## User messages",
      body
    ].join("\n")
    assert.isTrue(TestCompat.isSuccess(QualityGate.check(styled, { agentic: false })))
    assert.deepStrictEqual(QualityGate.missingSections(styled), [
      SummaryPrompt.openTasks,
      SummaryPrompt.currentWork,
      SummaryPrompt.nextStep
    ])
  })

  it("does not count a section named only inside a paragraph or a quote", () => {
    const quoted = `## Primary request\n${body}\n> ## Key decisions\nThe ## Open tasks are listed.\n`.padEnd(600, ".")
    assert.deepStrictEqual(QualityGate.missingSections(quoted).length, 7)
  })

  it.effect("fails the Effect form with the typed refusal", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(QualityGate.validate("   ", { agentic: false }))
      assert.strictEqual(error._tag, "SummaryRefused")
      assert.strictEqual(error.reason, "empty")
      assert.strictEqual(yield* QualityGate.validate(complete, { agentic: false }), complete)
    }))

  prop("refuses whitespace as empty", [fc.stringMatching(/^[ \t\n\r]{0,50}$/), fc.boolean()], ([blank, agentic]) => {
    assert.strictEqual(refusal(blank, agentic)?.reason, "empty")
  })

  prop(
    "refuses anything under 400 characters after trimming as too short, even with every heading",
    [fc.string({ minLength: 1, maxLength: 399 }).filter((s) => s.trim().length > 0), fc.boolean()],
    ([sample, agentic]) => {
      assert.strictEqual(refusal(sample, agentic)?.reason, "too-short")
      assert.strictEqual(refusal(SummaryPrompt.generalSections.join("\n").slice(0, 399), agentic)?.reason, "too-short")
    }
  )

  prop(
    "refuses a long summary that does not open with the first heading",
    [
      fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s.trim() !== "" && !s.trimStart().startsWith("#")),
      fc.boolean()
    ],
    ([preamble, agentic]) => {
      assert.strictEqual(refusal(`${preamble}\n${complete}`, agentic)?.reason, "wrong-opening")
    }
  )

  prop(
    "refuses a summary missing more than half of the general sections, and accepts one missing at most half",
    [fc.subarray(SummaryPrompt.generalSections.slice(1)), fc.boolean()],
    ([kept, agentic]) => {
      const summary = summaryWith([SummaryPrompt.primaryRequest, ...kept], body.repeat(5))
      const missing = SummaryPrompt.generalSections.length - 1 - kept.length
      const verdict = QualityGate.check(summary, { agentic })
      if (missing > SummaryPrompt.generalSections.length / 2) {
        assert.strictEqual(refusal(summary, agentic)?.reason, "missing-sections")
        assert.strictEqual(refusal(summary, agentic)?.missingSections.length, missing)
      } else {
        assert.isTrue(TestCompat.isSuccess(verdict))
      }
    }
  )
})
