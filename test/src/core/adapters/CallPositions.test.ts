import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as CallPositions from "../../../../src/core/adapters/CallPositions.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

/** A message's calls with ids from a pool of two, so that ids repeat inside it. */
const calls = fc.array(
  fc.record({ id: fc.constantFrom("call_a", "call_b"), command: fc.constantFrom("ls", "cat a.py", "cat b.py") }),
  { maxLength: 8 }
).map((drawn) =>
  drawn.map(({ command, id }) => new Transcript.ToolCall({ id, name: "bash", arguments: JSON.stringify({ command }) }))
)

describe("CallPositions", () => {
  prop(
    "a view that keeps some of a message's calls, some with changed arguments: each is matched to a call of its id, positions rise and none is used twice",
    [calls.chain((original) =>
      fc.tuple(
        fc.constant(original),
        fc.subarray(original.map((_, k) => k)),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })
      )
    )],
    ([[original, keptAt, changed]]) => {
      const kept = keptAt.map((k, n) =>
        changed[n] ? new Transcript.ToolCall({ ...original[k]!, arguments: "{\"clipped\":true}" }) : original[k]!
      )
      const positions = CallPositions.callPositions(original, kept)
      assert.strictEqual(positions.length, kept.length)
      positions.forEach((position, n) => {
        assert.isDefined(position)
        assert.strictEqual(original[position!]!.id, kept[n]!.id)
        if (n > 0) assert.isAbove(position!, positions[n - 1]!)
      })
      // Unchanged calls are matched to an identical call of the original.
      positions.forEach((position, n) => {
        if (!changed[n]) assert.strictEqual(original[position!]!.arguments, kept[n]!.arguments)
      })
    }
  )

  it("two calls under one id: the view that keeps only the second is matched to the second, not the first", () => {
    const first = new Transcript.ToolCall({ id: "call_00_x", name: "bash", arguments: "{\"command\":\"cat a.py\"}" })
    const second = new Transcript.ToolCall({ id: "call_00_x", name: "bash", arguments: "{\"command\":\"cat b.py\"}" })
    assert.deepStrictEqual(CallPositions.callPositions([first, second], [second]), [1])
    assert.deepStrictEqual(CallPositions.callPositions([first, second], [first, second]), [0, 1])
  })

  it("a call the original does not make is added, not matched", () => {
    const known = new Transcript.ToolCall({ id: "call_a", name: "bash", arguments: "{}" })
    const added = new Transcript.ToolCall({ id: "call_new", name: "bash", arguments: "{}" })
    const { added: fresh, at } = CallPositions.keptByPosition([known], [known, added])
    assert.deepStrictEqual([...at.keys()], [0])
    assert.deepStrictEqual(fresh, [added])
  })
})
