import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as TailCuts from "../../../../src/core/checkpoint/TailCuts.js"
import * as ViewFit from "../../../../src/core/checkpoint/ViewFit.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

const where = "the session's transcript"

/** A compaction's view: a system message, the block, then `tail` user messages and tool results of the given lengths. */
const viewOf = (tail: ReadonlyArray<number>): Transcript.Transcript => [
  new Transcript.SystemMessage({ id: "s", content: "You are an agent." }),
  new Transcript.CompactedBlock({
    id: "compacted-1",
    content: `## Summary of the compacted span\n${"block ".repeat(800)}`,
    firstReplacedId: "m0",
    lastReplacedId: "m9"
  }),
  ...tail.map((length, i) =>
    i % 2 === 0
      ? new Transcript.UserMessage({ id: `u${i}`, content: `request ${i} `.repeat(length) })
      : new Transcript.ToolResult({ id: `r${i}`, toolCallId: `c${i}`, content: `output line ${i}\n`.repeat(length) })
  )
]

describe("TailCuts", () => {
  prop(
    "the cuts of a view, saved as JSON and applied to the view rebuilt from the transcript, give back the view that was sent",
    [
      fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.boolean(), { minLength: 10, maxLength: 10 })
    ],
    ([tail, clipAt]) => {
      const built = viewOf(tail)
      // The ladder's clips of some messages, the block's among them.
      const sent = built.map((
        message,
        index
      ) => (index > 0 && clipAt[index % clipAt.length]
        ? ViewFit.clipMessage(message, 1_600, where) ?? message
        : message)
      )
      const cuts = TailCuts.cutsOf(built, sent)
      assert.deepStrictEqual(cuts.map((m) => m.id), sent.filter((m, i) => m !== built[i]).map((m) => m.id))
      const stored = Schema.decodeUnknownSync(Compat.fromJsonString(Schema.Array(Transcript.Message)))(
        JSON.stringify(Schema.encodeSync(Schema.Array(Transcript.Message))(cuts))
      )
      const restored = TailCuts.apply(viewOf(tail), stored)
      assert.strictEqual(JSON.stringify(restored), JSON.stringify(sent))
      for (const cut of restored.filter((_, i) => sent[i] !== built[i])) assert.isTrue(ViewFit.isDerived(cut))
    }
  )

  it("a cut whose message the view no longer holds, or holds as another kind, is left out", () => {
    const view = viewOf([50, 50])
    const stray = new Transcript.UserMessage({ id: "r1", content: "a user message under a tool result's id" })
    const gone = new Transcript.ToolResult({ id: "r9", toolCallId: "c9", content: "gone" })
    assert.deepStrictEqual(
      TailCuts.apply(view, [stray, gone]).map((m) => Transcript.text(m)),
      view.map((m) => Transcript.text(m))
    )
  })

  it("nothing before the block is cut or replaced: a system message with a cut's id stays", () => {
    const built = viewOf([10])
    const sent = [new Transcript.SystemMessage({ id: "s", content: "changed" }), ...built.slice(1)]
    assert.deepStrictEqual(TailCuts.cutsOf(built, sent), [])
    assert.strictEqual(TailCuts.tailStart(built), 2)
  })
})
