import { assert, describe, it } from "@effect/vitest"
import * as NewestError from "../../../../src/core/working-state/NewestError.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"

const result = (id: string, content: string) => new Transcript.ToolResult({ id, toolCallId: `c-${id}`, content })

describe("NewestError", () => {
  it("the newest tool result naming an error gives its last such line, collapsed; JSON is read by its strings", () => {
    const span: Transcript.Transcript = [
      result("r0", "Traceback (most recent call last):\n  File x\nValueError:   bad   value\nok"),
      result("r1", JSON.stringify({ ok: false, error: { message: "first\nTypeError: not callable" } })),
      result("r2", "all good")
    ]
    assert.deepStrictEqual(NewestError.newestIn(span), { toolCallId: "c-r1", line: "TypeError: not callable" })
    assert.deepStrictEqual(NewestError.newestIn(span.slice(0, 1)), {
      toolCallId: "c-r0",
      line: "ValueError: bad value"
    })
    assert.isUndefined(NewestError.newestIn([result("r3", "fine")]))
  })

  it("a block's section is read back from its text", () => {
    const error = { toolCallId: "call_7#2", line: "FAILED tests/test_a.py::test_b - AssertionError" }
    const block = `## Summary\n\n${NewestError.section(error)}### Files\n`
    assert.deepStrictEqual(NewestError.fromBlock(block), error)
    assert.isUndefined(NewestError.fromBlock("## Summary"))
    assert.isUndefined(NewestError.fromBlock(undefined))
  })
})
