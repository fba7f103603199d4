import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as MemoryView from "../../../../../src/core/checkpoint/MemoryView.js"
import * as Restore from "../../../../../src/core/checkpoint/Restore.js"
import * as Clip from "../../../../../src/core/reduce/Clip.js"
import * as SessionMemory from "../../../../../src/face/engine/internal/SessionMemory.js"
import * as Transcript from "../../../../../src/face/models/Transcript.js"
import { prop } from "../../../../support/Property.js"
import * as Generated from "../../../../transcripts.js"

/** A copy of each message, as another worker decodes the same request: equal, never the same object. */
const decodeMessage = Schema.decodeUnknownSync(Transcript.Message)
const encodeMessage = Schema.encodeSync(Transcript.Message)
const redecoded = (transcript: Transcript.Transcript): Transcript.Transcript =>
  transcript.map((message) => decodeMessage(encodeMessage(message)))

/** A last view: the base with some of its messages changed as the ladder changes them (text clipped). */
const lastViewOf = (base: Transcript.Transcript, clipped: ReadonlyArray<number>) => ({
  base,
  sent: base.map((message, index) =>
    clipped.includes(index) && message._tag === "ToolResult"
      ? new Transcript.ToolResult({ ...message, content: Clip.headTail(message.content, 40) })
      : message
  )
})

describe("SessionMemory", () => {
  prop(
    "a memory read back by another worker gives the sent prefix this worker's memory gives, message for message",
    [Generated.transcript(12), fc.array(fc.nat({ max: 60 }), { maxLength: 6 }), fc.nat({ max: 8 }), fc.boolean()],
    ([transcript, clipped, extra, diverge]) => {
      const cut = Math.max(1, transcript.length - extra)
      const last = lastViewOf(transcript.slice(0, cut), clipped)
      // The next request: the same history with more messages, or one whose head changed.
      const nextView = diverge && transcript.length > 1
        ? [new Transcript.UserMessage({ id: "rewritten", content: "another start" }), ...transcript.slice(1)]
        : transcript
      const local = Restore.sentPrefix(nextView, last)
      const decoded = SessionMemory.decode(
        SessionMemory.encode({ lastSent: { tokens: 10 }, compactedAt: 0, lastView: last })
      )
      assert.isTrue(TestCompat.isSuccess(decoded))
      const memory = TestCompat.getOrThrow(decoded)!
      const elsewhere = redecoded(nextView)
      const remote = Restore.sentPrefix(elsewhere, MemoryView.hydrate(memory.view!, elsewhere, Transcript.kit))
      assert.strictEqual(remote.sent, local.sent)
      assert.deepStrictEqual(remote.view.map(Transcript.text), local.view.map(Transcript.text))
      assert.deepStrictEqual(remote.view.map((message) => message.id), local.view.map((message) => message.id))
      assert.deepStrictEqual(memory.lastSent, { tokens: 10 })
    },
    { fastCheck: { numRuns: 60 } }
  )

  prop(
    "the memory's text is the one its Schema writes, for any last view",
    [
      Generated.transcript(12),
      fc.array(fc.nat({ max: 60 }), { maxLength: 6 }),
      fc.option(fc.nat(), { nil: undefined }),
      fc.boolean(),
      fc.option(fc.stringMatching(/^[0-9a-f]{32}$/), { nil: undefined }),
      fc.option(fc.stringMatching(/^[0-9a-f]{32}$/), { nil: undefined })
    ],
    ([transcript, clipped, tokens, withView, seen, sentDigest]) => {
      const memory = {
        lastSent: tokens === undefined
          ? undefined
          : { tokens, ...(sentDigest === undefined ? {} : { digest: sentDigest }) },
        compactedAt: clipped.length,
        lastView: withView ? lastViewOf(transcript, clipped) : undefined,
        lastSeen: seen === undefined ? undefined : { length: transcript.length, digest: seen }
      }
      const text = SessionMemory.encode(memory)
      assert.strictEqual(text, SessionMemory.encodeSchema(memory))
      // The last transcript a derived id's session saw comes back to another worker as it was.
      assert.deepStrictEqual(TestCompat.getOrThrow(SessionMemory.decode(text))!.seen, memory.lastSeen)
      // So does the last view sent, with the digest of the transcript it was made of.
      assert.deepStrictEqual(TestCompat.getOrThrow(SessionMemory.decode(text))!.lastSent, memory.lastSent)
    },
    { fastCheck: { numRuns: 80 } }
  )

  it("only the messages the ladder changed are stored whole; an empty or undecodable memory is none or an error, never a crash", () => {
    const base = Generated.longSession.slice(0, 30)
    const index = base.findIndex((message) => message._tag === "ToolResult" && message.content.length > 200)
    const text = SessionMemory.encode({ lastSent: undefined, compactedAt: 3, lastView: lastViewOf(base, [index]) })
    const memory = TestCompat.getOrThrow(SessionMemory.decode(text))!
    assert.deepStrictEqual(memory.view!.changed.map(([at]) => at), [index])
    assert.strictEqual(memory.view!.base.length, 30)
    assert.isUndefined(TestCompat.getOrThrow(SessionMemory.decode("")))
    assert.isTrue(TestCompat.isFailure(SessionMemory.decode("{not json")))
    assert.isTrue(TestCompat.isFailure(SessionMemory.decode(JSON.stringify({ compactedAt: "three" }))))
  })
})
