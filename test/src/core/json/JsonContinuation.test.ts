import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as JsonContinuation from "../../../../src/core/json/JsonContinuation.js"
import * as JsonReader from "../../../../src/core/json/JsonReader.js"
import { prop } from "../../../support/Property.js"

/** A chat message as a client writes it, with text that may hold JSON's awkward characters. */
const message = fc.record({
  role: fc.constantFrom("user", "assistant", "tool"),
  content: fc.oneof(
    fc.string(),
    fc.constant("a \"quoted\" [bracket] {brace}, \\ back\\slash \u2028 é"),
    fc.constant(null)
  ),
  n: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(12345678901234567890))
})

/** The other members of a body, before and after its history. */
const members = fc.dictionary(
  fc.constantFrom("model", "stream", "tools", "temperature", "user", "__proto__", "é\"key"),
  fc.jsonValue({ maxDepth: 3 }),
  { maxKeys: 3 }
)

/** A body's text as clients write it: compact, or indented. */
const bodyText = (
  before: Record<string, unknown>,
  messages: ReadonlyArray<unknown>,
  after: Record<string, unknown>,
  indent: number
): string => {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(before)) JsonReader.setOwn(body, key, value)
  body["messages"] = messages
  for (const [key, value] of Object.entries(after)) {
    if (!(key in body)) JsonReader.setOwn(body, key, value)
  }
  return JSON.stringify(body, null, indent)
}

const whole = (text: string) => JsonReader.read(text)

describe("JsonContinuation", () => {
  prop(
    "a body that adds messages to the last one reads as its whole text reads, the kept messages the very values read before",
    [
      members,
      fc.array(message, { minLength: 0, maxLength: 6 }),
      fc.array(message, { minLength: 0, maxLength: 4 }),
      members,
      members,
      fc.constantFrom(0, 2)
    ],
    ([before, first, added, after, laterAfter, indent]) => {
      const previousText = bodyText(before, first, after, indent)
      const previous = JsonContinuation.read(previousText, "messages")
      assert.deepStrictEqual(previous.value, whole(previousText))
      const nextText = bodyText(before, [...first, ...added], laterAfter, indent)
      const next = JsonContinuation.read(nextText, "messages", previous.read)
      assert.deepStrictEqual(next.value, whole(nextText))
      assert.deepStrictEqual(Object.keys((next.value as any).value), Object.keys((whole(nextText) as any).value))
      // Every body that repeats the last one's messages continues it.
      assert.strictEqual(next.kept, first.length)
      if (next.kept > 0) {
        const kept = (previous.value as any).value.messages
        const messages = (next.value as any).value.messages
        for (let i = 0; i < next.kept; i++) assert.strictEqual(messages[i], kept[i])
        assert.isBelow(next.parsed, nextText.length)
      }
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop(
    "whatever the next text is (an edit anywhere, of the same length or not), it reads as its whole text reads",
    [
      fc.array(message, { minLength: 1, maxLength: 5 }),
      members,
      fc.nat(),
      fc.string({ maxLength: 3 }),
      fc.nat({ max: 3 })
    ],
    ([messages, after, at, inserted, removed]) => {
      const previousText = bodyText({ model: "m" }, messages, after, 0)
      const previous = JsonContinuation.read(previousText, "messages")
      const grown = bodyText({ model: "m" }, [...messages, { role: "user", content: "next" }], after, 0)
      const index = at % grown.length
      const edited = grown.slice(0, index) + inserted + grown.slice(index + removed)
      const next = JsonContinuation.read(edited, "messages", previous.read)
      const expected = whole(edited)
      assert.strictEqual(next.value._tag, expected._tag)
      if (expected._tag === "Ok") assert.deepStrictEqual(next.value, expected)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it("a message edited to the same length is read anew, never kept from the last body", () => {
    const previousText = JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "transaction tx-1111" }, { role: "assistant", content: "ok" }]
    })
    const previous = JsonContinuation.read(previousText, "messages")
    const nextText = JSON.stringify({
      model: "m",
      messages: [
        { role: "user", content: "transaction tx-2222" },
        { role: "assistant", content: "ok" },
        { role: "user", content: "go on" }
      ]
    })
    const next = JsonContinuation.read(nextText, "messages", previous.read)
    assert.strictEqual(next.kept, 0)
    assert.strictEqual(next.parsed, nextText.length)
    assert.deepStrictEqual(next.value, whole(nextText))
  })

  it("a repeated key, a history that is not an array or a byte-order mark is read whole", () => {
    const repeated = "{\"messages\":[{\"a\":1}],\"messages\":[{\"b\":2}]}"
    assert.isUndefined(JsonContinuation.read(repeated, "messages").read)
    assert.isUndefined(JsonContinuation.read("{\"messages\":{}}", "messages").read)
    assert.isUndefined(JsonContinuation.read("\ufeff{\"messages\":[]}", "messages").read)
    // A later member that repeats an earlier key is read whole too: the whole text's last value wins.
    const previous = JsonContinuation.read("{\"model\":\"a\",\"messages\":[{\"x\":1}]}", "messages")
    const next = JsonContinuation.read(
      "{\"model\":\"a\",\"messages\":[{\"x\":1},{\"y\":2}],\"model\":\"b\"}",
      "messages",
      previous.read
    )
    assert.strictEqual(next.kept, 0)
    assert.deepStrictEqual(next.value, { _tag: "Ok", value: { model: "b", messages: [{ x: 1 }, { y: 2 }] } })
  })

  it("an empty history continues too, and a number at the end is not taken as continuing", () => {
    const empty = JsonContinuation.read("{\"messages\":[]}", "messages")
    const grown = JsonContinuation.read("{\"messages\":[{\"a\":1}]}", "messages", empty.read)
    assert.deepStrictEqual(grown.value, { _tag: "Ok", value: { messages: [{ a: 1 }] } })
    const numbers = JsonContinuation.read("{\"messages\":[1,2]}", "messages")
    const longer = JsonContinuation.read("{\"messages\":[1,23]}", "messages", numbers.read)
    assert.deepStrictEqual(longer.value, { _tag: "Ok", value: { messages: [1, 23] } })
    assert.strictEqual(longer.kept, 0)
  })
})
