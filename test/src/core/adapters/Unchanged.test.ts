import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Unchanged from "../../../../src/core/adapters/Unchanged.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

const word = fc.stringMatching(/^[a-z0-9]{1,8}$/)
const call = fc.record({ id: word, name: word, arguments: word }).map((fields) => new Transcript.ToolCall(fields))
const assistant = fc.record({
  id: word,
  content: fc.string({ maxLength: 20 }),
  toolCalls: fc.array(call, { maxLength: 3 })
})
  .map((fields) => new Transcript.AssistantMessage(fields))

describe("Unchanged.unchanged", () => {
  prop("a copy with the same fields is unchanged; another content, call name, call argument or call order is not", [
    assistant
  ], ([message]) => {
    const copy = new Transcript.AssistantMessage({
      id: message.id,
      content: message.content,
      toolCalls: message.toolCalls.map((c) => new Transcript.ToolCall({ ...c }))
    })
    assert.isTrue(Unchanged.unchanged(message, copy))
    assert.isFalse(
      Unchanged.unchanged(message, new Transcript.AssistantMessage({ ...copy, content: `${message.content}.` }))
    )
    if (message.toolCalls.length > 0) {
      const [first, ...rest] = message.toolCalls
      assert.isFalse(
        Unchanged.unchanged(
          message,
          new Transcript.AssistantMessage({
            ...copy,
            toolCalls: [new Transcript.ToolCall({ ...first!, name: `${first!.name}x` }), ...rest]
          })
        )
      )
      assert.isFalse(
        Unchanged.unchanged(
          message,
          new Transcript.AssistantMessage({
            ...copy,
            toolCalls: [new Transcript.ToolCall({ ...first!, arguments: `${first!.arguments}x` }), ...rest]
          })
        )
      )
      assert.isFalse(Unchanged.unchanged(message, new Transcript.AssistantMessage({ ...copy, toolCalls: rest })))
    }
  })

  it("a tool result answering another call, or a message of another kind, is changed", () => {
    const result = new Transcript.ToolResult({ id: "r1", toolCallId: "c1", content: "ok" })
    assert.isTrue(Unchanged.unchanged(result, new Transcript.ToolResult({ id: "r1", toolCallId: "c1", content: "ok" })))
    assert.isFalse(
      Unchanged.unchanged(result, new Transcript.ToolResult({ id: "r1", toolCallId: "c2", content: "ok" }))
    )
    assert.isFalse(
      Unchanged.unchanged(
        new Transcript.UserMessage({ id: "m", content: "hi" }),
        new Transcript.SystemMessage({ id: "m", content: "hi" })
      )
    )
  })
})
