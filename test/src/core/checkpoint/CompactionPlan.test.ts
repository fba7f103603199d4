import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as CompactionPlan from "../../../../src/core/checkpoint/CompactionPlan.js"
import * as Restore from "../../../../src/core/checkpoint/Restore.js"
import * as RestoredView from "../../../../src/core/checkpoint/RestoredView.js"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import { prop } from "../../../support/Property.js"
import * as Transcripts from "../../../transcripts.js"

const tokens = (message: Transcript.Message) => Math.ceil(Transcript.text(message).length / 4) + 4
const planOf = (transcript: Transcript.Transcript, trigger: number, manual: boolean) =>
  CompactionPlan.planWithin({
    transcript,
    kit: Transcript.kit,
    restored: Restore.restoreState(transcript, undefined, { boundaryHint: 0, pinnedHint: [] }),
    view: transcript,
    compactions: 1,
    settings: Settings.defaults,
    trigger,
    targetAfter: Budget.targetAfter(Settings.defaults, trigger),
    manual,
    tokens
  })
const count = (text: string) => Math.ceil(text.length / 4)

describe("CompactionPlan.planWithin", () => {
  prop("the boundary, when there is one, is one of the turn starts after the verbatim part", [
    Transcripts.transcript(12),
    fc.integer({ min: 2_000, max: 60_000 })
  ], ([transcript, trigger]) => {
    const plan = planOf(transcript, trigger, false)
    if (plan.boundary === undefined) return
    assert.include(Boundary.turnStarts(transcript), plan.boundary)
    assert.include(plan.candidates, plan.boundary)
  }, { fastCheck: { numRuns: 30 } })

  prop("a manual plan keeps only the newest user message (after the first) and what follows it verbatim", [
    Transcripts.transcript(8)
  ], ([transcript]) => {
    const plan = planOf(transcript, 100_000, true)
    const newestUser = transcript.findLastIndex((message) => message._tag === "User")
    // Only a user message after the first one is the newest turn's start: otherwise the plan cuts where the budget says.
    if (newestUser > RestoredView.systemPrefix(transcript)) assert.strictEqual(plan.boundary, newestUser)
  }, { fastCheck: { numRuns: 30 } })

  prop(
    "the engine's reading of staged approvals (Boundary.Staged) gives the pending approvals a fresh reading gives, read once per result",
    [Transcripts.transcript(12)],
    ([transcript]) => {
      const staged = Boundary.stagedMemo()
      const fresh = Boundary.pendingApprovals(transcript)
      assert.deepStrictEqual(Boundary.pendingApprovals(transcript, staged), fresh)
      assert.deepStrictEqual(Boundary.pendingApprovals(transcript, staged), fresh)
      for (const message of transcript) if (message._tag === "ToolResult") assert.isTrue(staged.byMessage.has(message))
    },
    { fastCheck: { numRuns: 30 } }
  )

  it("a cut's view is the block, the pinned messages and the verbatim tail from the cut", () => {
    const transcript = Transcripts.longSession
    const plan = planOf(transcript, 6_000, false)
    const cut = plan.boundary!
    const built = CompactionPlan.build(plan, CompactionPlan.cutsOf({ count }), cut, {
      summary: undefined,
      fallbackReason: "trim",
      archived: true
    })
    assert.strictEqual(built.view[built.view.length - 1], transcript[transcript.length - 1])
    assert.strictEqual(built.view.filter((message) => message._tag === "Compacted").length, 1)
    assert.deepStrictEqual(built.view.slice(built.view.length - (transcript.length - cut)), transcript.slice(cut))
  })

  it("a cut's archive path is asked of the archive once, however many blocks are built at the cut, and each block carries it", () => {
    const transcript = Transcripts.longSession
    const asked: Array<number> = []
    const plan = CompactionPlan.planWithin({
      transcript,
      kit: Transcript.kit,
      restored: Restore.restoreState(transcript, undefined, { boundaryHint: 0, pinnedHint: [] }),
      view: transcript,
      compactions: 1,
      settings: Settings.defaults,
      trigger: 6_000,
      targetAfter: Budget.targetAfter(Settings.defaults, 6_000),
      manual: false,
      tokens
    })
    const cuts = CompactionPlan.cutsOf({
      count,
      archivePathOf: (movedOut) => {
        asked.push(movedOut.length)
        return `transcripts/s-${movedOut.length}.jsonl`
      }
    })
    const cut = plan.boundary!
    const first = CompactionPlan.build(plan, cuts, cut, {
      summary: "The agent fixed the parser.",
      fallbackReason: undefined,
      archived: true
    })
    const again = CompactionPlan.build(plan, cuts, cut, { summary: undefined, fallbackReason: "trim", archived: true })
    const unarchived = CompactionPlan.build(plan, cuts, cut, {
      summary: undefined,
      fallbackReason: "trim",
      archived: false
    })
    const path = `transcripts/s-${CompactionPlan.movedOutAt(plan, cut).length}.jsonl`
    assert.deepStrictEqual(asked, [CompactionPlan.movedOutAt(plan, cut).length])
    assert.strictEqual(first.archivePath, path)
    assert.strictEqual(again.archivePath, path)
    assert.include(first.block.content, path)
    assert.isUndefined(unarchived.archivePath)
    assert.notInclude(unarchived.block.content, path)
  })

  it("the plan is data: it holds no function, and two caches of its cuts build the same block at a cut", () => {
    const transcript = Transcripts.longSession
    const plan = planOf(transcript, 6_000, false)
    assert.deepStrictEqual(
      Object.entries(plan).filter(([, value]) => typeof value === "function").map(([key]) => key),
      []
    )
    const cut = plan.boundary!
    const block = { summary: "The agent fixed the parser.", fallbackReason: undefined, archived: true }
    const one = CompactionPlan.build(plan, CompactionPlan.cutsOf({ count }), cut, block)
    const other = CompactionPlan.build(plan, CompactionPlan.cutsOf({ count }), cut, block)
    assert.strictEqual(one.block.content, other.block.content)
    assert.deepStrictEqual(one.view.map((message) => message.id), other.view.map((message) => message.id))
  })

  prop(
    "a cut moves out every message from the verbatim part up to it but the ones it pins, and pins only the messages of approvals called before it",
    [
      Transcripts.transcript(10)
    ],
    ([transcript]) => {
      const plan = planOf(transcript, 20_000, false)
      for (const cut of plan.candidates) {
        const pinned = CompactionPlan.pinnedAt(plan, cut)
        const movedOut = CompactionPlan.movedOutAt(plan, cut)
        const pinnedBefore = pinned.filter((index) => index >= plan.from && index < cut)
        assert.strictEqual(movedOut.length + pinnedBefore.length, cut - plan.from)
        for (const index of pinned) assert.notInclude(movedOut, transcript[index])
        for (const index of pinned) {
          assert.isTrue(plan.pending.some((o) => o.callIndex < cut && o.group.includes(index)))
        }
        assert.deepStrictEqual(CompactionPlan.spanAt(plan, cut), movedOut)
      }
    },
    { fastCheck: { numRuns: 30 } }
  )
})
