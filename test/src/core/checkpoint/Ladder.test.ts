import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as CompactionPlan from "../../../../src/core/checkpoint/CompactionPlan.js"
import * as Count from "../../../../src/core/checkpoint/Count.js"
import * as Ladder from "../../../../src/core/checkpoint/Ladder.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"
import * as Stages from "../../../support/Stages.js"
import * as Transcripts from "../../../transcripts.js"

const summary = "## Primary request\nFix the importer.\n## Current work\nThe parser's cache."

/** The ladder's budget and a plan of the long session in a window. */
const setup = (contextWindow: number, transcript: Transcript.Transcript = Transcripts.longSession) =>
  Stages.planned(contextWindow, transcript)

const compaction = (
  plan: CompactionPlan.Plan,
  counted: Count.Counted,
  text: string | undefined
): Ladder.Compaction => ({
  plan,
  cuts: CompactionPlan.cutsOf({ count: Stages.count }),
  boundary: plan.boundary!,
  summary: text,
  trimReason: text === undefined ? "the summariser failed" : undefined,
  counted: counted.counted,
  manual: false
})

describe("Ladder.fit", () => {
  prop(
    "a fitted view passes every check of the view, its fit to the trigger included, and is smaller than the view compacted",
    [
      fc.integer({ min: 8_000, max: 40_000 }),
      fc.boolean()
    ],
    ([window, summarised]) => {
      const { counted, fit, plan } = setup(window)
      if (plan.boundary === undefined) return
      const outcome = Ladder.fit(compaction(plan, counted, summarised ? summary : undefined), fit)
      assert.strictEqual(outcome._tag, "Fitted")
      if (outcome._tag !== "Fitted") return
      assert.deepStrictEqual(Ladder.check(fit, outcome.fitted.degraded.view, true), [])
      assert.isBelow(outcome.fitted.degraded.tokens, counted.counted)
      assert.strictEqual(outcome.fitted.fallbackReason === undefined, summarised)
    },
    { fastCheck: { numRuns: 10 } }
  )

  it("a trim cuts at a later turn than the summary's boundary when the boundary's view does not fit, and says why", () => {
    const { counted, fit, plan } = setup(8_000)
    const outcome = Ladder.fit(compaction(plan, counted, undefined), fit)
    assert.strictEqual(outcome._tag, "Fitted")
    if (outcome._tag === "Fitted") {
      assert.isAtLeast(outcome.fitted.cut, plan.candidates[0]!)
      assert.strictEqual(outcome.fitted.fallbackReason, "the summariser failed")
    }
  })

  it("a view that cannot fit says how small the ladder could make it", () => {
    const { counted, plan } = setup(8_000)
    const tiny = { ...setup(8_000).fit, trigger: 300, replyReserve: 100, viewBudget: 200 }
    const outcome = Ladder.fit(compaction(plan, counted, summary), tiny)
    assert.strictEqual(outcome._tag, "CannotFit")
    if (outcome._tag === "CannotFit") assert.isAbove(outcome.smallest, tiny.viewBudget)
  })
})

describe("Ladder.afterArchive", () => {
  const archivePathOf = (movedOut: Transcript.Transcript) => `transcripts/s-${movedOut.length}.jsonl`

  it("an archive that could not be written: the cut's block is built again without its path, and the view fitted again", () => {
    const { counted, fit, plan } = setup(16_000)
    const fitting: Ladder.Compaction = {
      ...compaction(plan, counted, summary),
      cuts: CompactionPlan.cutsOf({ count: Stages.count, archivePathOf })
    }
    const outcome = Ladder.fit(fitting, fit)
    if (outcome._tag !== "Fitted") return assert.fail(`the session does not fit: ${outcome._tag}`)
    assert.isDefined(outcome.fitted.built.archivePath)
    const written = Ladder.afterArchive(fitting, fit, outcome.fitted, {
      archived: true,
      targetAfter: counted.targetAfter
    })
    assert.strictEqual(written.built, outcome.fitted.built)
    const failed = Ladder.afterArchive(fitting, fit, outcome.fitted, {
      archived: false,
      targetAfter: counted.targetAfter
    })
    assert.strictEqual(failed.cut, outcome.fitted.cut)
    assert.isUndefined(failed.built.archivePath)
    assert.notInclude(failed.built.block.content, outcome.fitted.built.archivePath!)
    assert.deepStrictEqual(Ladder.check(fit, failed.degraded.view, false), [])
  })

  prop(
    "past the target the tail is cut down towards it, never grown, and a manual compaction keeps its tail as fitted",
    [
      fc.integer({ min: 8_000, max: 40_000 }),
      fc.integer({ min: 0, max: 4_000 })
    ],
    ([window, targetAfter]) => {
      const { counted, fit, plan } = setup(window)
      if (plan.boundary === undefined) return
      const fitting = compaction(plan, counted, summary)
      const outcome = Ladder.fit(fitting, fit)
      if (outcome._tag !== "Fitted") return
      const cut = Ladder.afterArchive(fitting, fit, outcome.fitted, { archived: true, targetAfter })
      assert.isAtMost(cut.degraded.tokens, outcome.fitted.degraded.tokens)
      if (outcome.fitted.degraded.tokens <= targetAfter) assert.strictEqual(cut.degraded, outcome.fitted.degraded)
      const manual = Ladder.afterArchive({ ...fitting, manual: true }, fit, outcome.fitted, {
        archived: true,
        targetAfter
      })
      assert.strictEqual(manual.degraded, outcome.fitted.degraded)
    },
    { fastCheck: { numRuns: 10 } }
  )
})

describe("Ladder.ladderOf", () => {
  it("the reply reserve's rung comes first when a small window leaves the reply less room than the setting, and only when the view took a rung", () => {
    const { fit } = setup(8_000)
    const step = {
      step: "clip-messages" as const,
      messageIds: ["m1"],
      tokensBefore: 10,
      tokensAfter: 5,
      detail: "clipped"
    }
    assert.deepStrictEqual(Ladder.ladderOf(fit, []), [])
    // At 8k the window's 1,600 tokens above the trigger are the reply's room, under the 4,096 setting.
    assert.strictEqual(fit.replyRoom, 1_600)
    const rungs = Ladder.ladderOf(fit, [step])
    assert.deepStrictEqual(rungs.map((rung) => rung.step), ["reply-reserve", "clip-messages"])
    assert.strictEqual(rungs[0]!.tokensAfter, 1_600)
    assert.deepStrictEqual(
      Ladder.ladderOf({ ...fit, replyRoom: fit.settingsReplyReserve }, [step]).map((rung) => rung.step),
      ["clip-messages"]
    )
  })
})

describe("Ladder.withoutCompaction", () => {
  prop("with nothing older to compact, a view that fits passes the checks; one that cannot says so", [
    Transcripts.transcript(4),
    fc.integer({ min: 50, max: 5_000 })
  ], ([view, budget]) => {
    const fit = { ...setup(32_000, view).fit, trigger: budget + 100, replyReserve: 100, viewBudget: budget }
    const outcome = Ladder.withoutCompaction(fit, { view, sent: 0 }, "nothing older")
    if (outcome._tag === "Fitted") assert.deepStrictEqual(Ladder.check(fit, outcome.fitted.view, true), [])
    else if (outcome._tag === "CannotFit") assert.strictEqual(outcome.detail, "nothing older")
  }, { fastCheck: { numRuns: 20 } })
})
