import { assert, describe, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as SameMessage from "../../../../src/internal/checkpoint/SameMessage.js"
import * as Transcript from "../../../../src/Transcript.js"

const id = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/)
const text = fc.string({ maxLength: 40 })
const kind = fc.constantFrom<"User" | "System">("User", "System")
const message = (tag: "User" | "System", messageId: string, content: string): Transcript.Message =>
  tag === "User"
    ? new Transcript.UserMessage({ id: messageId, content })
    : new Transcript.SystemMessage({ id: messageId, content })
const block = (blockId: string, content: string) =>
  new Transcript.CompactedBlock({ id: blockId, content, firstReplacedId: "f", lastReplacedId: "l" })

describe("SameMessage", () => {
  it.prop("a message rebuilt with the same kind, id and text length is the same message, whatever its text", [
    kind,
    id,
    text,
    fc.string({ maxLength: 1 })
  ], ([tag, messageId, content, other]) => {
    const before = message(tag, messageId, content)
    const rebuilt = message(
      tag,
      messageId,
      content.length === 0 ? "" : other.padEnd(content.length, "x").slice(0, content.length)
    )
    assert.isTrue(SameMessage.same(before, before))
    assert.isTrue(SameMessage.same(rebuilt, before))
    assert.isTrue(SameMessage.matches(rebuilt, SameMessage.fingerprintOf(before)))
  })

  it.prop(
    "another id, another kind or another text length is another message",
    [kind, id, text],
    ([tag, messageId, content]) => {
      const before = message(tag, messageId, content)
      assert.isFalse(SameMessage.same(message(tag, `${messageId}2`, content), before))
      assert.isFalse(SameMessage.same(message(tag === "User" ? "System" : "User", messageId, content), before))
      assert.isFalse(SameMessage.same(message(tag, messageId, `${content}!`), before))
    }
  )

  it.prop("a compacted block is the same only with the same content, not merely the same length", [
    id,
    text.filter((content) => content.length > 0)
  ], ([blockId, content]) => {
    const before = block(blockId, content)
    assert.isTrue(SameMessage.same(block(blockId, content), before))
    const changed = (content[0] === "a" ? "b" : "a") + content.slice(1)
    assert.isFalse(SameMessage.same(block(blockId, changed), before))
  })
})
