import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Restore from "../../../../src/core/checkpoint/Restore.js"
import * as RestoredView from "../../../../src/core/checkpoint/RestoredView.js"
import * as SameMessage from "../../../../src/core/checkpoint/SameMessage.js"
import * as TranscriptData from "../../../../src/core/transcript/TranscriptData.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"
import * as Transcripts from "../../../transcripts.js"

const hints = () => ({ boundaryHint: 0, pinnedHint: [] as ReadonlyArray<number>, lastView: undefined })

describe("Restore.restore", () => {
  prop("without a state or a last view, the view is the transcript and nothing was sent", [
    Transcripts.transcript(6)
  ], ([transcript]) => {
    const restored = Restore.restore(transcript, undefined, hints(), Transcript.kit)
    assert.deepStrictEqual(restored.view, transcript)
    assert.deepStrictEqual(restored.restoredView, transcript)
    assert.strictEqual(restored.sent, 0)
    assert.isUndefined(restored.restored.block)
    assert.strictEqual(restored.restored.from, restored.restored.prefix)
  })

  prop("the last view sent stays the head of the next view, message for message, when the transcript only grew", [
    Transcripts.transcript(6)
  ], ([transcript]) => {
    const half = transcript.slice(0, Math.ceil(transcript.length / 2))
    // The last view sent a clipped copy of its last message.
    const sent = [
      ...half.slice(0, -1),
      new Transcript.UserMessage({ id: half[half.length - 1]!.id, content: "clipped" })
    ]
    const restored = Restore.restore(
      transcript,
      undefined,
      { ...hints(), lastView: { base: half, sent } },
      Transcript.kit
    )
    assert.strictEqual(restored.sent, half.length)
    assert.strictEqual(restored.view.length, transcript.length)
    sent.forEach((message, index) => assert.strictEqual(restored.view[index], message))
    transcript.slice(half.length).forEach((message, index) =>
      assert.strictEqual(restored.view[half.length + index], message)
    )
  })

  it("a last view whose head no longer matches is no sent prefix", () => {
    const a = new Transcript.UserMessage({ id: "a", content: "one" })
    const b = new Transcript.UserMessage({ id: "b", content: "two" })
    const { sent, view } = Restore.sentPrefix([a, b], {
      base: [a, new Transcript.UserMessage({ id: "c", content: "three" })],
      sent: [a]
    })
    assert.strictEqual(sent, 0)
    assert.deepStrictEqual(view, [a, b])
  })
})

describe("Restore.restoreState", () => {
  const block = new Transcript.CompactedBlock({
    id: "compacted-1",
    content: "earlier work",
    firstReplacedId: "",
    lastReplacedId: ""
  })
  prop(
    "a state whose boundary the transcript holds gives its block and the tail from the boundary, and the hint where it was found",
    [Transcripts.transcript(6)],
    ([transcript]) => {
      const prefix = RestoredView.systemPrefix(transcript)
      const at = transcript.length - 1
      const state = { compactions: 1, block, boundaryId: transcript[at]!.id, pinnedIds: [] }
      const session = { boundaryHint: 0, pinnedHint: [] as ReadonlyArray<number> }
      const restored = Restore.restoreState(transcript, state, session)
      assert.isTrue(restored.restored)
      assert.strictEqual(restored.block, block)
      assert.strictEqual(restored.from, at)
      assert.strictEqual(restored.hints.boundaryHint, at)
      assert.strictEqual(session.boundaryHint, 0, "the hints given are read, never written")
      assert.deepStrictEqual(Restore.stateView(transcript, restored), [
        ...transcript.slice(0, prefix),
        block,
        transcript[at]!
      ])
    }
  )

  prop(
    "a state whose boundary or pinned message the transcript no longer holds gives nothing: the transcript is the view",
    [Transcripts.transcript(6), fc.boolean()],
    ([transcript, boundaryLost]) => {
      const state = {
        compactions: 1,
        block,
        boundaryId: boundaryLost ? "not-in-the-transcript" : transcript[transcript.length - 1]!.id,
        pinnedIds: boundaryLost ? [] : ["not-in-the-transcript"]
      }
      const restored = Restore.restoreState(transcript, state, { boundaryHint: 0, pinnedHint: [] })
      assert.isFalse(restored.restored)
      assert.isUndefined(restored.block)
      assert.strictEqual(restored.from, RestoredView.systemPrefix(transcript))
      assert.strictEqual(Restore.stateView(transcript, restored), transcript)
    }
  )

  prop(
    "a state restores over the transcript it was made from, rebuilt or not, and not over one edited in its span; a rebuilt span is compared, not hashed again",
    [Transcripts.transcript(12), fc.nat(), fc.string({ minLength: 1, maxLength: 1 })],
    ([transcript, at, letter]) => {
      const prefix = RestoredView.systemPrefix(transcript)
      const boundary = transcript.length - 1
      fc.pre(boundary > prefix + 1)
      const block = new Transcript.CompactedBlock({
        id: "compacted-1",
        content: "the block",
        firstReplacedId: transcript[prefix]!.id,
        lastReplacedId: transcript[boundary - 1]!.id
      })
      const digests = SameMessage.digests()
      const state: Restore.Persisted = {
        compactions: 1,
        block,
        boundaryId: transcript[boundary]!.id,
        pinnedIds: [],
        sourceDigest: Restore.sourceDigestOf(transcript, prefix, boundary, [], digests)
      }
      const first = Restore.restoreState(transcript, state, hints(), digests)
      assert.isTrue(first.restored)
      // Rebuilt at the next call: the same content in new objects restores, from the session's hints alone.
      const rebuilt = transcript.map((message) => TranscriptData.withFields(message, {}))
      assert.notStrictEqual(rebuilt[prefix], transcript[prefix])
      let hashed = 0
      const counting: SameMessage.Digests = { of: (message) => (hashed++, SameMessage.digestOf(message)) }
      const again = Restore.restoreState(rebuilt, state, first.hints, counting)
      assert.isTrue(again.restored)
      assert.strictEqual(hashed, 0)
      // One message of the span edited to the same length: not restored, hints or not.
      const index = prefix + (at % (boundary - prefix))
      const message = transcript[index]!
      fc.pre(message.content.length > 0)
      const last = message.content.at(-1)!
      const content = message.content.slice(0, -1) + (last === letter ? (letter === "a" ? "b" : "a") : letter)
      const edited = transcript.map((each, i) =>
        i === index ? TranscriptData.withFields(each, { content } as never) : each
      )
      assert.isFalse(Restore.restoreState(edited, state, first.hints, SameMessage.digests()).restored)
      assert.isFalse(Restore.restoreState(edited, state, hints(), SameMessage.digests()).restored)
    }
  )
})
