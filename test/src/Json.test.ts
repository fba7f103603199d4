import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Json from "../../src/Json.js"

describe("Json", () => {
  it("integers past 2^53 survive a parse and stringify byte for byte", () => {
    const text = '{"a":12345678901234567890123,"b":[-98765432109876543210],"c":"12345678901234567890","d":1.5e+300}'
    const parsed = Json.parse(text)
    assert.isTrue(Either.isRight(parsed))
    assert.strictEqual(Json.stringify(Either.getOrThrow(parsed)), text)
  })

  it.prop("parse then stringify is JSON.stringify for ordinary JSON", [fc.jsonValue()], ([value]) => {
    const text = JSON.stringify(value)
    assert.strictEqual(Json.stringify(Either.getOrThrow(Json.parse(text))), JSON.stringify(JSON.parse(text)))
  })

  it("a negative zero is kept as written where it is a value, and a date's -0 does not send text to the exact reader", () => {
    const text = '{"a":-0,"b":[-0.0,-0e5],"c":"-0","d":0,"e":-0.5}'
    assert.strictEqual(Json.stringify(Either.getOrThrow(Json.parse(text))), text)
    assert.strictEqual(Json.stringify(Either.getOrThrow(Json.parse("-0"))), "-0")
    assert.isTrue(Json.mayHoldInexactNumbers("[1, -0]"))
    assert.isFalse(Json.mayHoldInexactNumbers('{"at":"2025-01-02","x":-0.5,"y":10-0}'))
  })

  it("withoutRawNumbers leaves no placeholder: a whole one is its literal, one inside JSON held as text too, one in a message its bare literal", () => {
    const value = Either.getOrThrow(Json.parse('{"big":123456789012345678901234567890,"huge":1e400}')) as Record<string, string>
    const answer = JSON.stringify({ whole: value["huge"], json: JSON.stringify(value), message: `expected a number, got ${value["big"]}` })
    assert.include(answer, "context-compressor:number:")
    const clean = Json.withoutRawNumbers(answer)
    assert.notInclude(clean, "context-compressor:number:")
    assert.strictEqual(clean, '{"whole":1e400,"json":"{\\"big\\":123456789012345678901234567890,\\"huge\\":1e400}","message":"expected a number, got 123456789012345678901234567890"}')
    assert.strictEqual(Json.withoutRawNumbers("plain text"), "plain text")
  })

  it("text that is not JSON is a typed error", () => {
    const parsed = Json.parse("{not json")
    assert.isTrue(Either.isLeft(parsed))
    if (Either.isLeft(parsed)) assert.strictEqual(parsed.left._tag, "JsonParseError")
  })

  it("fromUnknown bounds depth, breaks cycles and keeps bigints exact", () => {
    const cycle: Record<string, unknown> = { name: "loop" }
    cycle["self"] = cycle
    let deep: unknown = "bottom"
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const { cut, json } = Json.fromUnknown({ cycle, deep, big: 123456789012345678901234567890n, date: new Date(0), skip: undefined }, 64)
    assert.isAtLeast(cut, 2)
    const text = Json.stringify(json)
    assert.include(text, "123456789012345678901234567890")
    assert.include(text, "1970-01-01T00:00:00.000Z")
    assert.include(text, "[circular reference elided]")
    assert.notInclude(text, "skip")
  })

  it("setOwn stores a __proto__ key as data, not as the prototype", () => {
    const target: Record<string, unknown> = {}
    Json.setOwn(target, "__proto__", { polluted: true })
    assert.deepStrictEqual(Object.keys(target), ["__proto__"])
    assert.isUndefined((target as { polluted?: unknown }).polluted)
    assert.strictEqual(JSON.stringify(target), '{"__proto__":{"polluted":true}}')
  })
})
