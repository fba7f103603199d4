import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as BlockBuild from "../../../../src/core/block/BlockBuild.js"
import * as RestoredView from "../../../../src/core/checkpoint/RestoredView.js"
import * as WorkingState from "../../../../src/core/working-state/WorkingState.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"
import * as Transcripts from "../../../transcripts.js"

const count = (text: string) => Math.ceil(text.length / 4)

describe("BlockBuild.missingFrom", () => {
  prop(
    "an id is mentioned only as a whole word of the summary: a longer id that starts with it does not mention it",
    [
      fc.stringMatching(/^[a-z]{2}_[a-z0-9]{4}$/),
      fc.stringMatching(/^[a-z0-9]{1,3}$/)
    ],
    ([id, tail]) => {
      assert.deepStrictEqual(BlockBuild.missingFrom(`we reserved ${id}${tail} today`, [id]), [id])
      assert.deepStrictEqual(BlockBuild.missingFrom(`we reserved ${id}, today`, [id]), [])
    }
  )

  it("without a summary nothing is missing from it; a path must appear exactly", () => {
    assert.deepStrictEqual(BlockBuild.missingFrom(undefined, ["tx_1"]), [])
    assert.deepStrictEqual(BlockBuild.missingFrom("edited src/a.ts", ["src/a.ts", "src/b.ts"]), ["src/b.ts"])
  })
})

describe("BlockBuild.build", () => {
  prop(
    "the block replaces the history before the cut, and the view is the system messages, the block and the transcript from the cut",
    [
      Transcripts.transcript(8)
    ],
    ([transcript]) => {
      const prefix = RestoredView.systemPrefix(transcript)
      const cut = transcript.length - 1
      if (cut <= prefix) return
      const built = BlockBuild.build({
        transcript,
        kit: Transcript.kit,
        prefix,
        cut,
        pinned: [],
        movedOut: transcript.slice(prefix, cut),
        working: WorkingState.extract(transcript.slice(prefix, cut)),
        firstUser: Transcript.firstUserMessage(transcript),
        earlierBlock: undefined,
        compactions: 3,
        trigger: 20_000,
        count,
        summary: "The agent fixed the parser.",
        fallbackReason: undefined,
        archivePath: undefined
      })
      assert.strictEqual(built.block.id, "compacted-3")
      assert.strictEqual(built.block.firstReplacedId, transcript[prefix]!.id)
      assert.strictEqual(built.block.lastReplacedId, transcript[cut - 1]!.id)
      assert.include(built.block.content, "The agent fixed the parser.")
      assert.deepStrictEqual(built.view, [...transcript.slice(0, prefix), built.block, transcript[cut]!])
    },
    { fastCheck: { numRuns: 20 } }
  )
})
