import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "node:stream"
import * as AttentionTerminal from "../../../../src/face/layers/AttentionTerminal.js"

const terminal = (timeout?: AttentionTerminal.Options["timeout"]) => {
  const input = new Stream.PassThrough()
  const output = new Stream.PassThrough()
  let written = ""
  output.on("data", (chunk: Buffer) => (written += chunk.toString()))
  const attention = AttentionTerminal.make({ input, output, ...(timeout === undefined ? {} : { timeout }) })
  return { attention, input, written: () => written }
}

describe("AttentionTerminal", () => {
  it("reads r, retry, t and trim in any case as answers, anything else as none", () => {
    assert.strictEqual(AttentionTerminal.parseAnswer(" R \r"), "retry")
    assert.strictEqual(AttentionTerminal.parseAnswer("Retry"), "retry")
    assert.strictEqual(AttentionTerminal.parseAnswer("t"), "trim")
    assert.strictEqual(AttentionTerminal.parseAnswer("TRIM"), "trim")
    assert.isUndefined(AttentionTerminal.parseAnswer("yes"))
  })

  it.live("writes the problem and the question, and takes the typed answer; two questions read two lines", () =>
    Effect.gen(function*() {
      const { attention, input, written } = terminal()
      input.write("r\nt\n")
      assert.strictEqual(yield* attention.choose("the summariser failed (HTTP 500)"), "retry")
      assert.strictEqual(yield* attention.choose("the summariser failed again"), "trim")
      assert.include(written(), "the summariser failed (HTTP 500)")
      assert.include(written(), "[r/t]")
      assert.isTrue(yield* attention.attended)
    }))

  it.live("asks again after an answer that is neither, and trims after three of them", () =>
    Effect.gen(function*() {
      const { attention, input, written } = terminal()
      input.write("maybe\nr\n")
      assert.strictEqual(yield* attention.choose("p"), "retry")
      assert.include(written(), `"maybe" is not r or t`)
      input.write("a\nb\nc\n")
      assert.strictEqual(yield* attention.choose("p"), "trim")
    }))

  it.live("the input ending is Trim", () =>
    Effect.gen(function*() {
      const { attention, input } = terminal()
      input.end()
      assert.strictEqual(yield* attention.choose("p"), "trim")
    }))

  it.effect("no answer before the deadline is Trim, and says so", () =>
    Effect.gen(function*() {
      const { attention, written } = terminal("1 minute")
      const fiber = yield* TestCompat.forkChild(attention.choose("p"))
      yield* TestCompat.adjustClock("61 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), "trim")
      assert.include(written(), "no answer in time")
    }))
})
