/**
 * What the shared core's checkpoint stages answer over one transcript, as plain JSON: the repair
 * (its view's messages and repairs), the boundary's turn starts, pending approvals and boundary at
 * two keep budgets, the tail's start, the view's violations, and the ladder's rungs at three
 * budgets (the view, its tokens and the steps). Imports only the core, so the Effect 3 program
 * (`Effect3Stages.ts`) and the Effect 4 suite (`test-effect4/test/stages.test.ts`) run the same
 * function over the same transcript, each on its own Effect.
 */
import * as Boundary from "../../src/internal/checkpoint/Boundary.js"
import * as TailCuts from "../../src/internal/checkpoint/TailCuts.js"
import * as ViewFit from "../../src/internal/checkpoint/ViewFit.js"
import * as ViewRepair from "../../src/internal/checkpoint/ViewRepair.js"
import * as ViewViolations from "../../src/internal/checkpoint/ViewViolations.js"
import type * as RuleData from "../../src/internal/reduce/RuleData.js"
import * as TranscriptData from "../../src/internal/transcript/TranscriptData.js"

/** A token count of the tests: four characters a token, four tokens a message. */
export const tokens = (message: TranscriptData.Message): number =>
  Math.ceil(TranscriptData.text(message).length / 4) + 4

/** The fields of a message, without its class: how both faces' answers are compared. */
const plain = (message: TranscriptData.Message): unknown => JSON.parse(JSON.stringify(message))

/** The stages' answers over `transcript` with `policies` for the rungs. */
export const stageAnswers = (
  transcript: TranscriptData.Transcript,
  policies: ReadonlyArray<RuleData.Policy>
): unknown => {
  const repaired = ViewRepair.repair(transcript)
  if ("malformed" in repaired) return { malformed: repaired.malformed }
  const view = repaired.transcript
  const total = view.reduce((sum, message) => sum + tokens(message), 0)
  const firstUserMessage = TranscriptData.firstUserMessage(view)
  return {
    repairs: repaired.repairs,
    repaired: view.map(plain),
    derived: view.flatMap((message, index) => (ViewFit.isDerived(message) ? [index] : [])),
    turnStarts: Boundary.turnStarts(view),
    pendingApprovals: Boundary.pendingApprovals(view),
    boundaries: [0.1, 0.3].map((share) => Boundary.find(view, 0, Math.floor(total * share), tokens)),
    tailStart: TailCuts.tailStart(view),
    violations: ViewViolations.check(view, { firstUserMessage, fit: { trigger: total, replyReserve: 1_000, tokens } }),
    rungs: [0.8, 0.5, 0.2].map((share) => {
      const fitted = ViewFit.fit(view, {
        budget: Math.floor(total * share),
        tokens,
        policies,
        capChars: 8_000,
        whereWhole: () => "the session's transcript",
        whereBlock: "the archive"
      })
      return { view: fitted.view.map(plain), tokens: fitted.tokens, steps: fitted.steps }
    })
  }
}
