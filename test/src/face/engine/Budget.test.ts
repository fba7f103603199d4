import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Budget from "../../../../src/face/engine/Budget.js"
import { prop } from "../../../support/Property.js"

describe("Budget.blockParts", () => {
  prop(
    "the parts fit the block whenever their floors do, and the working state shrinks only once the pinned first message is at its floor (what the agent reuses goes last)",
    [
      fc.integer({ min: 200, max: 80_000 }),
      fc.integer({ min: 1_000, max: 250_000 }),
      fc.integer({ min: 0, max: 10_000 })
    ],
    ([budget, trigger, firstMessageTokens]) => {
      const parts = Budget.blockParts(budget, trigger, firstMessageTokens)
      const room = Math.max(budget - 160, 0)
      const pinnedFloor = Math.min(Math.min(firstMessageTokens, Budget.pinnedMessageTokens), 160)
      const floors = Math.floor(room * 0.05) + Math.floor(room * 0.08) + Math.floor(room * 0.25) + pinnedFloor
      if (floors <= room) assert.isAtMost(parts.pinned + parts.userMessages + parts.workingState + parts.summary, room)
      const workingStart = Math.min(Budget.workingStateBudget(trigger), Math.floor(room * (room < 2_000 ? 0.45 : 0.32)))
      if (parts.workingState < workingStart) assert.strictEqual(parts.pinned, pinnedFloor)
      assert.isAtLeast(parts.workingState, Math.min(workingStart, Math.floor(room * 0.25)))
    }
  )

  it("at an 8k window the working state keeps 792 tokens of a 1,920-token block and the 1,500-token first message is clipped to 740; laid out for the summary as before issue 31, 440 and 1,092", () => {
    assert.deepStrictEqual(Budget.blockParts(1_920, 6_400, 1_500), {
      budget: 1_920,
      pinned: 740,
      userMessages: 88,
      workingState: 792,
      summary: 140
    })
    assert.deepStrictEqual(Budget.blockParts(1_920, 6_400, 1_500, "summary"), {
      budget: 1_920,
      pinned: 1_092,
      userMessages: 88,
      workingState: 440,
      summary: 140
    })
    // From a block of 2,000 tokens of room up the two layouts start alike.
    assert.deepStrictEqual(Budget.blockParts(7_680, 25_600, 1_500), Budget.blockParts(7_680, 25_600, 1_500, "summary"))
  })
})
