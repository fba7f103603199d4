import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as MemoryView from "../../../../src/core/checkpoint/MemoryView.js"
import * as SameMessage from "../../../../src/core/checkpoint/SameMessage.js"
import * as TranscriptData from "../../../../src/core/transcript/TranscriptData.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

const id = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/)
const text = fc.string({ maxLength: 40 })

/** A message of any kind, with the fields of its kind drawn too. */
const anyMessage: fc.Arbitrary<Transcript.Message> = fc.oneof(
  fc.tuple(id, text).map(([messageId, content]) => new Transcript.SystemMessage({ id: messageId, content })),
  fc.tuple(id, text).map(([messageId, content]) => new Transcript.UserMessage({ id: messageId, content })),
  fc.tuple(id, text, fc.array(fc.tuple(id, id, text), { maxLength: 3 })).map(([messageId, content, calls]) =>
    new Transcript.AssistantMessage({
      id: messageId,
      content,
      toolCalls: calls.map(([callId, name, args]) => new Transcript.ToolCall({ id: callId, name, arguments: args }))
    })
  ),
  fc.tuple(id, id, fc.option(id, { nil: undefined }), text).map(([messageId, callId, name, content]) =>
    new Transcript.ToolResult({ id: messageId, toolCallId: callId, content, ...(name === undefined ? {} : { name }) })
  ),
  fc.tuple(id, text, id, id).map(([messageId, content, first, last]) =>
    new Transcript.CompactedBlock({ id: messageId, content, firstReplacedId: first, lastReplacedId: last })
  )
)

/** The message rebuilt field by field: equal, never the same object. */
const rebuilt = (message: Transcript.Message): Transcript.Message => TranscriptData.withFields(message, {})

/** One string of the message changed to another of the same length: its text, a call's arguments, a call id. */
const editedSameLength = (message: Transcript.Message, at: number): Transcript.Message => {
  const flip = (s: string) =>
    s.length === 0
      ? undefined
      : s.slice(0, at % s.length) + (s[at % s.length] === "a" ? "b" : "a") + s.slice(at % s.length + 1)
  const content = flip(message.content)
  if (content !== undefined) return TranscriptData.withFields(message, { content } as never)
  if (message._tag === "Assistant" && message.toolCalls.length > 0) {
    const [call, ...rest] = message.toolCalls
    const args = flip(call!.arguments)
    return TranscriptData.withFields(message, {
      toolCalls: [
        new Transcript.ToolCall({ ...call!, ...(args === undefined ? { id: flip(call!.id)! } : { arguments: args }) }),
        ...rest
      ]
    })
  }
  if (message._tag === "ToolResult") {
    return TranscriptData.withFields(message, { toolCallId: flip(message.toolCallId)! })
  }
  if (message._tag === "Compacted") {
    return TranscriptData.withFields(message, { firstReplacedId: flip(message.firstReplacedId)! })
  }
  throw new Error("nothing to edit")
}

/** A message with a string to edit: some text, a call, a result's call id or a block's replaced ids. */
const editable = anyMessage.filter((message) =>
  message.content.length > 0 || message._tag === "ToolResult" || message._tag === "Compacted" ||
  (message._tag === "Assistant" && message.toolCalls.length > 0)
)

describe("SameMessage", () => {
  prop(
    "a message rebuilt with the same content is the same message, and has the same digest",
    [anyMessage],
    ([message]) => {
      const copy = rebuilt(message)
      assert.notStrictEqual(copy, message)
      assert.isTrue(SameMessage.sameContent(message, message))
      assert.isTrue(SameMessage.sameContent(copy, message))
      assert.isTrue(SameMessage.sameContent(message, copy))
      assert.strictEqual(SameMessage.digestOf(copy), SameMessage.digestOf(message))
    }
  )

  prop(
    "a message edited to the same length (text, a call's arguments or id, a result's call id) is another message, by content and by digest",
    [editable, fc.nat()],
    ([message, at]) => {
      const edited = editedSameLength(message, at)
      assert.strictEqual(Transcript.text(edited).length, Transcript.text(message).length)
      assert.isFalse(SameMessage.sameContent(edited, message))
      assert.isFalse(SameMessage.sameContent(message, edited))
      assert.notStrictEqual(SameMessage.digestOf(edited), SameMessage.digestOf(message))
      // The fingerprint another worker reads back: the edited message is not the one it stands for.
      const print = MemoryView.fingerprintOf(message)
      const { base } = MemoryView.hydrate({ base: [print], changed: [] }, [edited], Transcript.kit)
      assert.notStrictEqual(base[0], edited)
      assert.strictEqual(
        MemoryView.hydrate({ base: [print], changed: [] }, [rebuilt(message)], Transcript.kit).base[0]!.id,
        message.id
      )
    }
  )

  prop("another id or another kind is another message", [anyMessage], ([message]) => {
    assert.isFalse(SameMessage.sameContent(TranscriptData.withFields(message, { id: `${message.id}2` }), message))
    const other = message._tag === "User"
      ? new Transcript.SystemMessage({ id: message.id, content: message.content })
      : new Transcript.UserMessage({ id: message.id, content: message.content })
    assert.isFalse(SameMessage.sameContent(other, message))
  })

  it("a digest is computed once per message object by the memo", () => {
    const digests = SameMessage.digests()
    const message = new Transcript.UserMessage({ id: "u", content: "hello" })
    assert.strictEqual(digests.of(message), SameMessage.digestOf(message))
    assert.strictEqual(digests.of(message), digests.of(message))
    assert.strictEqual(
      SameMessage.digestOfAll([message, rebuilt(message)], digests),
      SameMessage.digestOfAll([rebuilt(message), message], SameMessage.digests())
    )
  })
})
