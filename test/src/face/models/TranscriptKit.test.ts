/**
 * The face's kit makes each value as its class's constructor (without checks)
 * makes it: the same class, the same own keys in the same order, equal,
 * hashing, printing and encoding alike.
 */
import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Equal from "effect/Equal"
import * as Hash from "effect/Hash"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as TranscriptData from "../../../../src/core/transcript/TranscriptData.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

const unchecked = Compat.disableChecks

const same = (made: object, constructed: object) => {
  assert.strictEqual(Object.getPrototypeOf(made), Object.getPrototypeOf(constructed))
  assert.deepStrictEqual(Reflect.ownKeys(made), Reflect.ownKeys(constructed))
  assert.isTrue(Equal.equals(made, constructed))
  assert.strictEqual(Hash.hash(made), Hash.hash(constructed))
  assert.strictEqual(String(made), String(constructed))
}

const encode = Schema.encodeSync(Transcript.Message)

describe("Transcript.kit", () => {
  prop("a message the kit makes is the one its class's constructor makes", [
    fc.string(),
    fc.string(),
    fc.array(fc.tuple(fc.string(), fc.string(), fc.string()), { maxLength: 3 }),
    fc.option(fc.string(), { nil: undefined })
  ], ([id, content, calls, name]) => {
    const { kit } = Transcript
    same(kit.systemMessage({ id, content }), new Transcript.SystemMessage({ id, content }, unchecked))
    same(kit.userMessage({ id, content }), new Transcript.UserMessage({ id, content }, unchecked))
    const toolCalls = calls.map(([callId, callName, args]) =>
      kit.toolCall({ id: callId, name: callName, arguments: args })
    )
    calls.forEach(([callId, callName, args], index) =>
      same(toolCalls[index]!, new Transcript.ToolCall({ id: callId, name: callName, arguments: args }, unchecked))
    )
    const assistant = kit.assistantMessage({ id, content, toolCalls })
    const constructed = new Transcript.AssistantMessage({ id, content, toolCalls }, unchecked)
    same(assistant, constructed)
    assert.deepStrictEqual(encode(assistant), encode(constructed))
    const fields = name === undefined ? { id, toolCallId: id, content } : { id, toolCallId: id, name, content }
    const result = kit.toolResult(fields)
    same(result, new Transcript.ToolResult(fields, unchecked))
    assert.deepStrictEqual(encode(result), encode(new Transcript.ToolResult(fields, unchecked)))
    const blockFields = { id, content, firstReplacedId: id, lastReplacedId: content }
    same(kit.compactedBlock(blockFields), new Transcript.CompactedBlock(blockFields, unchecked))
  })

  it("fields holding a tag of their own are made by the constructor, which puts the tag last", () => {
    const message = Transcript.kit.userMessage({ _tag: "User", id: "m1", content: "hi" } as never)
    same(message, new Transcript.UserMessage({ id: "m1", content: "hi" }, unchecked))
  })
})

describe("the core's copies of the face's values", () => {
  prop("a copy with a changed field is the message its class's constructor makes, even after the original was hashed", [
    fc.string(),
    fc.string(),
    fc.string()
  ], ([id, content, changed]) => {
    const call = new Transcript.ToolCall({ id, name: "read", arguments: content }, unchecked)
    // One array for both: Effect compares arrays inside a class by reference.
    const toolCalls = [call]
    const originals: ReadonlyArray<readonly [Transcript.Message, Transcript.Message]> = [
      [
        new Transcript.SystemMessage({ id, content }, unchecked),
        new Transcript.SystemMessage({ id, content: changed }, unchecked)
      ],
      [
        new Transcript.UserMessage({ id, content }, unchecked),
        new Transcript.UserMessage({ id, content: changed }, unchecked)
      ],
      [
        new Transcript.AssistantMessage({ id, content, toolCalls }, unchecked),
        new Transcript.AssistantMessage({ id, content: changed, toolCalls }, unchecked)
      ],
      [
        new Transcript.ToolResult({ id, toolCallId: id, content }, unchecked),
        new Transcript.ToolResult({ id, toolCallId: id, content: changed }, unchecked)
      ],
      [
        new Transcript.CompactedBlock({ id, content, firstReplacedId: id, lastReplacedId: id }, unchecked),
        new Transcript.CompactedBlock({ id, content: changed, firstReplacedId: id, lastReplacedId: id }, unchecked)
      ]
    ]
    for (const [original, expected] of originals) {
      // Hashing caches the hash on the original: the copy must not carry it.
      Hash.hash(original)
      const copy = TranscriptData.withFields(original, { content: changed })
      same(copy, expected)
      assert.deepStrictEqual(encode(copy), encode(expected))
      assert.strictEqual(original.content, content)
    }
    const copiedCall = TranscriptData.callWithFields(call, { arguments: changed })
    same(copiedCall, new Transcript.ToolCall({ id, name: "read", arguments: changed }, unchecked))
  })

  it("a copy is of the message's own class, a subclass's included; plain data stays plain data", () => {
    const user = new Transcript.UserMessage({ id: "m1", content: "Fix the parser." })
    const copy = TranscriptData.withFields(user, { content: "Fix the lexer." })
    assert.instanceOf(copy, Transcript.UserMessage)
    assert.strictEqual(copy.content, "Fix the lexer.")
    class Pinned extends Transcript.UserMessage {}
    const pinned = TranscriptData.withFields(new Pinned({ id: "m2", content: "a" }), { content: "b" })
    assert.instanceOf(pinned, Pinned)
    const data = TranscriptData.withFields(
      { _tag: "User", id: "m3", content: "a" } as TranscriptData.UserMessage,
      { content: "b" }
    )
    assert.deepStrictEqual(data, { _tag: "User", id: "m3", content: "b" })
    assert.strictEqual(Object.getPrototypeOf(data), Object.prototype)
  })
})
