import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as JsonWrite from "../../../../src/core/json/JsonWrite.js"
import * as Steps from "../../../../src/core/Steps.js"
import * as JsonRead from "../../../../src/face/models/internal/JsonRead.js"
import * as Json from "../../../../src/face/models/Json.js"
import { effectProp, prop } from "../../../support/Property.js"

describe("Json", () => {
  it("integers past 2^53 survive a parse and stringify byte for byte", () => {
    const text =
      "{\"a\":12345678901234567890123,\"b\":[-98765432109876543210],\"c\":\"12345678901234567890\",\"d\":1.5e+300}"
    const parsed = Json.parse(text)
    assert.isTrue(TestCompat.isSuccess(parsed))
    assert.strictEqual(Json.stringify(TestCompat.getOrThrow(parsed)), text)
  })

  prop(
    "an integer written as digits comes back as written, also one whose double writes back as the same decimal (10^40)",
    [fc.bigInt({ min: -(10n ** 45n), max: 10n ** 45n }), fc.nat({ max: 30 })],
    ([n, zeros]) => {
      const text = `[${n}${n === 0n ? "" : "0".repeat(zeros)}]`
      assert.strictEqual(Json.stringify(TestCompat.getOrThrow(Json.parse(text))), text)
    }
  )

  prop("parse then stringify is JSON.stringify for ordinary JSON", [fc.jsonValue()], ([value]) => {
    const text = JSON.stringify(value)
    assert.strictEqual(Json.stringify(TestCompat.getOrThrow(Json.parse(text))), JSON.stringify(JSON.parse(text)))
  })

  it("a negative zero is kept as written where it is a value, and a date's -0 does not send text to the exact reader", () => {
    const text = "{\"a\":-0,\"b\":[-0.0,-0e5],\"c\":\"-0\",\"d\":0,\"e\":-0.5}"
    assert.strictEqual(Json.stringify(TestCompat.getOrThrow(Json.parse(text))), text)
    assert.strictEqual(Json.stringify(TestCompat.getOrThrow(Json.parse("-0"))), "-0")
    assert.isTrue(Json.mayHoldInexactNumbers("[1, -0]"))
    assert.isFalse(Json.mayHoldInexactNumbers("{\"at\":\"2025-01-02\",\"x\":-0.5,\"y\":10-0}"))
  })

  it("withoutRawNumbers leaves no placeholder: a whole one is its literal, one inside JSON held as text too, one in a message its bare literal", () => {
    const value = TestCompat.getOrThrow(
      Json.parse("{\"big\":123456789012345678901234567890,\"huge\":1e400}")
    ) as Record<
      string,
      string
    >
    const answer = JSON.stringify({
      whole: value["huge"],
      json: JSON.stringify(value),
      message: `expected a number, got ${value["big"]}`
    })
    assert.include(answer, "context-compressor:number:")
    const clean = Json.withoutRawNumbers(answer)
    assert.notInclude(clean, "context-compressor:number:")
    assert.strictEqual(
      clean,
      "{\"whole\":1e400,\"json\":\"{\\\"big\\\":123456789012345678901234567890,\\\"huge\\\":1e400}\",\"message\":\"expected a number, got 123456789012345678901234567890\"}"
    )
    assert.strictEqual(Json.withoutRawNumbers("plain text"), "plain text")
  })

  it("text that is not JSON is a typed error", () => {
    const parsed = Json.parse("{not json")
    assert.isTrue(TestCompat.isFailure(parsed))
    assert.strictEqual(Option.getOrThrow(TestCompat.getFailure(parsed))._tag, "JsonParseError")
  })

  it("fromUnknown bounds depth, breaks cycles and keeps bigints exact", () => {
    const cycle: Record<string, unknown> = { name: "loop" }
    cycle["self"] = cycle
    let deep: unknown = "bottom"
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const { cut, json } = Json.fromUnknown({
      cycle,
      deep,
      big: 123456789012345678901234567890n,
      date: new Date(0),
      skip: undefined
    }, 64)
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
    assert.strictEqual(JSON.stringify(target), "{\"__proto__\":{\"polluted\":true}}")
  })
})

// JSON text with literals only the exact reader keeps (past 2^53, 1e400, -0, long decimals), in long arrays and nested objects.
const exactLiteral = fc.constantFrom(
  "12345678901234567890123",
  "1e400",
  "-0",
  "0.12345678901234567890123",
  "-98765432109876543210",
  "1.5e+300",
  "42",
  "\"x\""
)
const exactText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    exactLiteral,
    fc.jsonValue({ maxDepth: 1 }).map((value) => JSON.stringify(value)),
    fc.array(tie("value"), { maxLength: 40 }).map((items) => `[${items.join(",")}]`),
    fc.array(fc.tuple(fc.string({ maxLength: 6 }), tie("value")), { maxLength: 6 }).map((fields) =>
      `{${fields.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`
    )
  )
})).value

/** A value with many array elements near the top, as an HTTP answer has: the stepped writer writes those one by one. */
const answerLike = fc.record({
  report: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  output: fc.oneof(
    fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 80 }),
    fc.record({ model: fc.string(), messages: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 80 }) })
  ),
  view: fc.array(fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)), { maxLength: 80 }),
  skipped: fc.constant(undefined)
})

describe("Json in steps", () => {
  effectProp(
    "parseSteps, run pausing at every step, reads what parse reads, exact literals, depth and errors included",
    [
      exactText,
      fc.option(fc.nat(), { nil: undefined })
    ],
    ([text, cut]) =>
      Effect.gen(function*() {
        // A cut text is broken JSON: the error is the same too.
        const source = cut === undefined ? text : text.slice(0, cut % (text.length + 1))
        const stepped = yield* TestCompat.runPausing(JsonRead.parseSteps(source))
        assert.deepStrictEqual(stepped, Json.parse(source))
        if (TestCompat.isSuccess(stepped)) {
          assert.strictEqual(
            Json.stringify(TestCompat.getOrThrow(stepped)),
            Json.stringify(TestCompat.getOrThrow(Json.parse(source)))
          )
        }
      })
  )

  it("the exact reader pauses every few thousand tokens", () => {
    const text = `[${
      Array.from({ length: 20_000 }, (_, i) => (i === 0 ? "12345678901234567890123" : String(i))).join(",")
    }]`
    let pauses = 0
    const steps = JsonRead.parseSteps(text)
    for (let next = steps.next(); next.done !== true; next = steps.next()) pauses++
    assert.isAtLeast(pauses, 4)
    assert.strictEqual(Json.stringify(TestCompat.getOrThrow(Json.parse(text))), text)
  })

  effectProp(
    "stringifySteps, run pausing at every step, writes what stringify writes: placeholders as their literals, skipped fields and elements as JSON skips them",
    [
      answerLike,
      exactText
    ],
    ([value, text]) =>
      Effect.gen(function*() {
        const withExact = { ...value, exact: TestCompat.getOrElse(Json.parse(text), () => null) }
        assert.strictEqual(
          yield* TestCompat.runPausing(JsonWrite.stringifySteps(withExact)),
          Json.stringify(withExact)
        )
        assert.strictEqual(Steps.runSync(JsonWrite.stringifySteps(value.output)), Json.stringify(value.output))
      })
  )

  it("stringifySteps writes a value nested deeper than JSON.stringify's stack, and a top-level undefined as null, as stringify does", () => {
    let deep: unknown = 1
    for (let i = 0; i < 20_000; i++) deep = [deep]
    const value = { messages: [deep, { a: deep }] }
    assert.strictEqual(Steps.runSync(JsonWrite.stringifySteps(value)), Json.stringify(value))
    assert.strictEqual(Steps.runSync(JsonWrite.stringifySteps(undefined)), Json.stringify(undefined))
    const cyclic: Array<unknown> = []
    cyclic.push(cyclic)
    assert.throws(() => Steps.runSync(JsonWrite.stringifySteps({ cyclic })))
  })
})

/** The nesting depth of a parsed value, by recursion (the oracle of `nestingDepth`). */
const depthOf = (value: unknown): number =>
  Array.isArray(value)
    ? 1 + Math.max(0, ...value.map(depthOf))
    : typeof value === "object" && value !== null
    ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
    : 0

describe("Json.nestingDepth", () => {
  prop("is the depth of the parsed value, brackets and escaped quotes inside strings not counted", [
    fc.jsonValue({ maxDepth: 12 }),
    fc.constantFrom(undefined, 2)
  ], ([value, indent]) => {
    const text = JSON.stringify(value, null, indent)
    assert.strictEqual(Json.nestingDepth(text), depthOf(value))
  })

  prop("stops at the limit: past it the answer is limit + 1, within it the depth", [
    fc.integer({ min: 1, max: 2_000 }),
    fc.integer({ min: 0, max: 2_000 })
  ], ([depth, limit]) => {
    const text = "[".repeat(depth) + "\"[\\\"{\"" + "]".repeat(depth)
    assert.strictEqual(Json.nestingDepth(text, limit), depth > limit ? limit + 1 : depth)
  })

  it("reads a million levels without a stack", () => {
    assert.strictEqual(Json.nestingDepth("[".repeat(1_000_000) + "]".repeat(1_000_000)), 1_000_000)
  })
})
