import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Overflow from "../../../../src/face/engine/Overflow.js"
import { prop } from "../../../support/Property.js"

const fixtures = NodeUrl.fileURLToPath(new URL("./fixtures/overflow", import.meta.url))
const body = (name: string): string => Fs.readFileSync(NodePath.join(fixtures, `${name}.json`), "utf8")

const expected: ReadonlyArray<{
  readonly fixture: string
  readonly provider: Overflow.Provider
  readonly limit?: number
  readonly promptTokens?: number
}> = [
  { fixture: "openai-chat", provider: "openai", limit: 128_000, promptTokens: 131_274 },
  { fixture: "openai-chat-completion", provider: "openai", limit: 8_192, promptTokens: 8_192 },
  { fixture: "openai-responses", provider: "openai" },
  { fixture: "anthropic", provider: "anthropic", limit: 200_000, promptTokens: 208_310 },
  { fixture: "anthropic-max-tokens", provider: "anthropic", limit: 200_000, promptTokens: 188_240 },
  { fixture: "gemini", provider: "gemini", limit: 1_048_576, promptTokens: 1_196_265 },
  { fixture: "vertex", provider: "gemini", limit: 1_048_576, promptTokens: 1_050_000 },
  { fixture: "vllm", provider: "vllm", limit: 32_768, promptTokens: 32_768 },
  { fixture: "vllm-engine", provider: "vllm", limit: 32_768, promptTokens: 40_321 },
  { fixture: "llama-cpp", provider: "llama.cpp", limit: 4_096, promptTokens: 4_476 },
  { fixture: "llama-cpp-old", provider: "llama.cpp" },
  { fixture: "ollama", provider: "ollama" },
  { fixture: "ollama-openai", provider: "ollama" }
]

describe("Overflow.classify", () => {
  for (const { fixture, provider, limit, promptTokens } of expected) {
    it(`recognises ${fixture}.json as ${provider}'s overflow${limit === undefined ? "" : `, naming the limit ${limit} and ${promptTokens} prompt tokens`}`, () => {
      const text = body(fixture)
      for (const given of [text, JSON.parse(text)]) {
        const found = Option.getOrThrow(Overflow.classify(given))
        assert.strictEqual(found.provider, provider)
        assert.strictEqual(found.limit, limit)
        assert.strictEqual(found.promptTokens, promptTokens)
        assert.isAtMost(found.message.length, Overflow.maxMessageChars)
        assert.notInclude(found.message, "\n")
      }
    })
  }

  for (const fixture of ["not-overflow-rate-limit", "not-overflow-output-limit", "not-overflow-overloaded"]) {
    it(`does not take ${fixture}.json for an overflow`, () => {
      assert.isTrue(Option.isNone(Overflow.classify(body(fixture))))
    })
  }

  it("reads the body an SDK error carries, and a body wrapped as text inside another error (as gateways do)", () => {
    const sdkError = Object.assign(new Error("400 status code (no body)"), {
      status: 400,
      error: JSON.parse(body("anthropic"))["error"]
    })
    assert.strictEqual(Option.getOrThrow(Overflow.classify(sdkError)).limit, 200_000)
    const wrapped = { error: { message: body("gemini"), code: 400, status: "Bad Request" } }
    const found = Option.getOrThrow(Overflow.classify(wrapped))
    assert.strictEqual(found.provider, "gemini")
    assert.strictEqual(found.promptTokens, 1_196_265)
  })

  it("takes an unknown server's message in the common words, without numbers", () => {
    const found = Option.getOrThrow(Overflow.classify("Error: context window exceeded for this request"))
    assert.strictEqual(found.provider, "unknown")
    assert.isUndefined(found.limit)
  })

  it("bounds the message it keeps", () => {
    const long = `prompt is too long: 900000 tokens > 200000 maximum ${"x".repeat(10_000)}`
    assert.isAtMost(Option.getOrThrow(Overflow.classify(long)).message.length, Overflow.maxMessageChars)
  })

  prop("never throws and answers None or an overflow, whatever it is given", [
    fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true })
  ], ([value]) => {
    const found = Overflow.classify(value)
    if (Option.isSome(found)) assert.isAtMost(found.value.message.length, Overflow.maxMessageChars)
  })

  it("survives a cyclic error object and deep nesting", () => {
    const cyclic: Record<string, unknown> = { message: "maximum context length is 4096 tokens" }
    cyclic["error"] = cyclic
    assert.strictEqual(Option.getOrThrow(Overflow.classify(cyclic)).limit, 4_096)
    let deep: unknown = { message: "prompt is too long" }
    for (let i = 0; i < 10_000; i++) deep = { error: deep }
    assert.isTrue(Option.isNone(Overflow.classify(deep)))
  })
})
