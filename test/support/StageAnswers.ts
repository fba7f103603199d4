/**
 * What the shared core's checkpoint stages answer over one transcript, as plain JSON: the repair
 * (its view's messages and repairs), the boundary's turn starts, pending approvals and boundary at
 * two keep budgets, the tail's start, the view's violations, and the ladder's rungs at three
 * budgets (the view, its tokens and the steps); and at two windows the plan of a compaction
 * (`CompactionPlan.planWithin`: its boundary, candidate cuts, pending approvals and block parts),
 * the working state up to its boundary, the block and view built there, and the ladder's
 * compaction fit (`Ladder.fitSteps`) with a summary and as a trim. Imports only the core, so the Effect 3 program
 * (`Effect3Stages.ts`) and the Effect 4 suite (`test-effect4/test/stages.test.ts`) run the same
 * function over the same transcript, each on its own Effect.
 */
import * as Boundary from "../../src/core/checkpoint/Boundary.js"
import * as CompactionPlan from "../../src/core/checkpoint/CompactionPlan.js"
import * as Count from "../../src/core/checkpoint/Count.js"
import * as Ladder from "../../src/core/checkpoint/Ladder.js"
import * as Restore from "../../src/core/checkpoint/Restore.js"
import * as TailCuts from "../../src/core/checkpoint/TailCuts.js"
import * as ViewFit from "../../src/core/checkpoint/ViewFit.js"
import * as ViewRepair from "../../src/core/checkpoint/ViewRepair.js"
import * as ViewViolations from "../../src/core/checkpoint/ViewViolations.js"
import type * as RuleData from "../../src/core/reduce/RuleData.js"
import * as SettingsValues from "../../src/core/services/SettingsValues.js"
import * as Steps from "../../src/core/Steps.js"
import * as TranscriptData from "../../src/core/transcript/TranscriptData.js"

/** A token count of the tests: four characters a token, four tokens a message. */
export const tokens = (message: TranscriptData.Message): number =>
  Math.ceil(TranscriptData.text(message).length / 4) + 4

/** The fields of a message, without its class: how both faces' answers are compared. */
const plain = (message: TranscriptData.Message): unknown => JSON.parse(JSON.stringify(message))

/** What a built block gives, as plain JSON. */
const builtAnswer = (built: {
  readonly block: TranscriptData.CompactedBlock
  readonly missing: ReadonlyArray<string>
  readonly pinned: ReadonlyArray<number>
  readonly view: TranscriptData.Transcript
  readonly archivePath: string | undefined
}) => ({
  block: plain(built.block),
  missing: built.missing,
  pinned: built.pinned,
  view: built.view.map(plain),
  archivePath: built.archivePath ?? null
})

/** A fit's outcome, as plain JSON. */
const outcomeAnswer = (outcome: Ladder.Outcome<Ladder.Fitted>) =>
  outcome._tag === "Fitted"
    ? {
      _tag: outcome._tag,
      cut: outcome.fitted.cut,
      fallbackReason: outcome.fitted.fallbackReason ?? null,
      built: builtAnswer(outcome.fitted.built),
      view: outcome.fitted.degraded.view.map(plain),
      tokens: outcome.fitted.degraded.tokens,
      steps: outcome.fitted.degraded.steps
    }
    : JSON.parse(JSON.stringify(outcome))

/**
 * The plan of a compaction of `view` in a window (the default settings, no saved state), the working
 * state and block at its boundary, and the ladder's fit of it with a summary and as a trim.
 */
const compactionAnswers = (
  view: TranscriptData.Transcript,
  policies: ReadonlyArray<RuleData.Policy>,
  contextWindow: number
) => {
  const settings = SettingsValues.defaults
  const counted = Count.budget({
    settings,
    input: { contextWindow },
    cause: "trigger",
    counted: view.reduce((sum, message) => sum + tokens(message), 0),
    lastSent: undefined,
    transcriptDigest: ""
  })
  const fit = Ladder.fitOf({
    settings,
    counted,
    policies,
    firstUserMessage: TranscriptData.firstUserMessage(view),
    tokens
  })
  const restored = Restore.restoreState(view, undefined, { boundaryHint: 0, pinnedHint: [] })
  const plan = CompactionPlan.planWithin({
    transcript: view,
    kit: TranscriptData.dataKit,
    restored,
    view,
    compactions: 1,
    settings,
    trigger: counted.messagesTrigger,
    targetAfter: counted.targetAfter,
    manual: false,
    tokens,
    sessionId: "s"
  })
  const cutsOf = () =>
    CompactionPlan.cutsOf({
      count: (text) => Math.ceil(text.length / 4),
      archivePathOf: (movedOut) => `archive/${movedOut[0]?.id ?? "none"}-${movedOut.length}.json`
    })
  const planned = {
    prefix: plan.prefix,
    from: plan.from,
    boundary: plan.boundary ?? null,
    candidates: plan.candidates,
    pending: plan.pending,
    blockParts: plan.blockParts ?? null,
    trigger: plan.trigger
  }
  const { boundary } = plan
  if (boundary === undefined) return { counted, plan: planned }
  const fitWith = (summary: string | undefined, trimReason: string | undefined) =>
    outcomeAnswer(Steps.runSync(Ladder.fitSteps({
      plan,
      cuts: cutsOf(),
      boundary,
      summary,
      trimReason,
      counted: counted.counted,
      manual: false
    }, fit)))
  const cuts = cutsOf()
  return {
    counted,
    plan: planned,
    workingState: CompactionPlan.workingStateAt(plan, cuts, boundary),
    built: builtAnswer(
      CompactionPlan.build(plan, cuts, boundary, { summary: "The summary.", fallbackReason: undefined, archived: true })
    ),
    summarised: fitWith("## Summary\nThe work so far: the files read and the commands run.", undefined),
    trimmed: fitWith(undefined, "the summariser gave no summary")
  }
}

/** The stages' answers over `transcript` with `policies` for the rungs. */
export const stageAnswers = (
  transcript: TranscriptData.Transcript,
  policies: ReadonlyArray<RuleData.Policy>
): unknown => {
  const repaired = ViewRepair.repair(transcript, TranscriptData.dataKit)
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
    }),
    compactions: [0.15, 0.5, 1.5].map((share) =>
      compactionAnswers(view, policies, Math.max(Math.floor((total * share) / 0.8), 4_000))
    )
  }
}
