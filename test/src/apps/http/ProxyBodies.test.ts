/**
 * The proxy's memory of each session's last body (`ProxyCompaction.bodies`):
 * a body whose bytes repeat the last one's up to its history's end is read
 * as that body's values plus what it adds, never decoding the rest; any other
 * body is read whole. Either way the value is the whole text's.
 */
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as BodyLimits from "../../../../src/apps/http/BodyLimits.js"
import * as ProxyCompaction from "../../../../src/apps/http/ProxyCompaction.js"
import * as JsonReader from "../../../../src/core/json/JsonReader.js"
import { prop } from "../../../support/Property.js"

const message = fc.record({
  role: fc.constantFrom("user", "assistant", "tool"),
  content: fc.oneof(fc.string(), fc.constant("caf\u00e9 \u2603 \ud83d\ude00 \"q\" [b] {c} \\"), fc.constant(null))
})

/** A body as its bytes, its text read lazily as the proxy reads it. */
const bodyOf = (text: string) => BodyLimits.bodyOfBytes(new TextEncoder().encode(text))

/** A body whose text is never to be decoded: reading it fails the test. */
const undecoded = (text: string): BodyLimits.Body => ({
  bytes: new TextEncoder().encode(text),
  get text(): string {
    throw new Error("the body's text was decoded")
  }
})

const textOf = (messages: ReadonlyArray<unknown>, after: Record<string, unknown>) =>
  JSON.stringify({ model: "gpt-test", messages, ...after })

describe("ProxyCompaction.bodies", () => {
  prop(
    "a body that adds messages to the last one is read without decoding what it repeats, as the whole text reads",
    [
      fc.array(message, { minLength: 1, maxLength: 5 }),
      fc.array(message, { maxLength: 3 }),
      fc.dictionary(fc.constantFrom("stream", "tools", "temperature"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 })
    ],
    ([first, added, after]) => {
      const bodies = ProxyCompaction.bodies()
      const firstText = textOf(first, {})
      const read = TestCompat.getOrThrow(bodies.parse("k", bodyOf(firstText), "messages")) as any
      const nextText = textOf([...first, ...added], after)
      const next = TestCompat.getOrThrow(bodies.parse("k", undecoded(nextText), "messages")) as any
      assert.deepStrictEqual(next, JsonReader.read(nextText)._tag === "Ok" ? JSON.parse(nextText) : undefined)
      for (let i = 0; i < first.length; i++) assert.strictEqual(next.messages[i], read.messages[i])
    },
    { fastCheck: { numRuns: 200 } }
  )

  prop(
    "a body edited anywhere (the same length or not) reads as its whole text reads, its edited messages read anew",
    [fc.array(message, { minLength: 2, maxLength: 5 }), fc.nat(), fc.string({ minLength: 1, maxLength: 2 })],
    ([messages, at, replacement]) => {
      const bodies = ProxyCompaction.bodies()
      const firstText = textOf(messages, {})
      bodies.parse("k", bodyOf(firstText), "messages")
      const grown = textOf([...messages, { role: "user", content: "next" }], {})
      const index = at % grown.length
      const edited = grown.slice(0, index) + replacement + grown.slice(index + replacement.length)
      const next = bodies.parse("k", bodyOf(edited), "messages")
      // What arrives is the bytes: an edit that split a character pair is the replacement character there.
      const whole = JsonReader.read(new TextDecoder().decode(new TextEncoder().encode(edited)))
      assert.strictEqual(TestCompat.isSuccess(next), whole._tag === "Ok")
      if (whole._tag === "Ok") assert.deepStrictEqual(TestCompat.getOrThrow(next), whole.value)
    },
    { fastCheck: { numRuns: 400 } }
  )

  it("a message edited to the same length is not taken from the last body", () => {
    const bodies = ProxyCompaction.bodies()
    bodies.parse(
      "k",
      bodyOf(textOf([{ role: "user", content: "tx-1111" }, { role: "user", content: "b" }], {})),
      "messages"
    )
    const edited = textOf([{ role: "user", content: "tx-2222" }, { role: "user", content: "b" }, {
      role: "user",
      content: "c"
    }], {})
    const read = TestCompat.getOrThrow(bodies.parse("k", bodyOf(edited), "messages")) as any
    assert.strictEqual(read.messages[0].content, "tx-2222")
  })

  it("another key's body, or one past the bound, is not kept", () => {
    const bodies = ProxyCompaction.bodies(100)
    const small = textOf([{ role: "user", content: "a" }], {})
    bodies.parse("k", bodyOf(small), "messages")
    // The same key continues; another key reads whole (its text is decoded).
    const grown = textOf([{ role: "user", content: "a" }, { role: "user", content: "b" }], {})
    assert.isTrue(TestCompat.isSuccess(bodies.parse("k", undecoded(grown), "messages")))
    assert.throws(() => bodies.parse("other", undecoded(grown), "messages"), /decoded/)
    // A body past the bound is read, not kept: the next one is read whole.
    const large = textOf([{ role: "user", content: "x".repeat(200) }], {})
    bodies.parse("big", bodyOf(large), "messages")
    const larger = textOf([{ role: "user", content: "x".repeat(200) }, { role: "user", content: "y" }], {})
    assert.throws(() => bodies.parse("big", undecoded(larger), "messages"), /decoded/)
  })

  prop(
    "a body's depth read over its bytes is its text's: strings with brackets, escapes and characters of any width skipped alike",
    [
      fc.integer({ min: 505, max: 520 }),
      fc.array(
        fc.oneof(fc.constant("\"[{\\\"]\""), fc.constant("\"caf\u00e9 \u2603 \ud83d\ude00 [\""), fc.constant("1")),
        { maxLength: 4 }
      )
    ],
    ([depth, noise]) => {
      const inner = noise.length === 0 ? "" : noise.join(",")
      const text = "[".repeat(depth) + inner + "]".repeat(depth)
      const bytes = new TextEncoder().encode(text)
      const expected = BodyLimits.depthRefusal(text)
      assert.strictEqual(BodyLimits.depthRefusalOf(BodyLimits.bodyOfBytes(bytes)), expected)
      assert.strictEqual(expected !== undefined, depth > BodyLimits.maxJsonDepth)
    },
    { fastCheck: { numRuns: 100 } }
  )

  prop(
    "a body's depth is its whole text's, however deep the messages it repeats, those it adds and the members after them nest",
    [
      fc.integer({ min: 0, max: 515 }),
      fc.integer({ min: 0, max: 515 }),
      fc.integer({ min: 0, max: 515 }),
      fc.integer({ min: 0, max: 515 })
    ],
    ([head, tools, added, laterTools]) => {
      const nested = (depth: number): unknown => {
        let value: unknown = "x"
        for (let i = 0; i < depth; i++) value = [value]
        return value
      }
      const bodies = ProxyCompaction.bodies()
      const first = JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: nested(head) }],
        tools: nested(tools)
      })
      const second = JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: nested(head) }, { role: "user", content: nested(added) }],
        tools: nested(laterTools)
      })
      for (const text of [first, second]) {
        const body = bodyOf(text)
        const refusal = bodies.depthRefusal("k", body)
        assert.strictEqual(refusal, BodyLimits.depthRefusal(text))
        if (refusal === undefined) bodies.parse("k", body, "messages")
      }
    },
    { fastCheck: { numRuns: 150 } }
  )
})
