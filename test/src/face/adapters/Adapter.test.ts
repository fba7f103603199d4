/**
 * The adapter contract (issue 44): `decode` answers an effect, `decodeResult` the pure value, and
 * the two agree for every adapter; `make` derives `decode` from `decodeResult`; the deprecated
 * `toEffect` still turns either answer into the same effect.
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as EffectAiPrompt from "../../../../src/apps/effect-ai/EffectAiPrompt.js"
import * as Adapter from "../../../../src/face/adapters/Adapter.js"
import * as Adapters from "../../../../src/face/adapters/Adapters.js"

const chat = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "list the files" }
]

const documents: ReadonlyArray<unknown> = [
  chat,
  { messages: chat },
  { system: "You are a coding agent.", messages: [{ role: "user", content: "list the files" }] },
  [{ role: "developer", content: "You are a coding agent." }, { role: "user", content: "list the files" }],
  { content: chat },
  5,
  [{ role: "user", content: "hi" }, { role: "bot", content: "x" }]
]

describe("Adapter", () => {
  for (const adapter of [EffectAiPrompt.adapter, ...Adapters.all]) {
    it.effect(`${adapter.format}: decode is decodeResult's answer as an effect`, () =>
      Effect.gen(function*() {
        for (const document of documents) {
          const pure = adapter.decodeResult(document)
          const effect = yield* Compat.result(adapter.decode(document))
          if (TestCompat.isFailure(pure)) {
            assert.isTrue(TestCompat.isFailure(effect))
            assert.deepStrictEqual(TestCompat.getFailure(effect), TestCompat.getFailure(pure))
          } else {
            assert.isTrue(TestCompat.isSuccess(effect))
            assert.deepStrictEqual(TestCompat.getOrThrow(effect).transcript, TestCompat.getOrThrow(pure).transcript)
          }
        }
      }))
  }

  it.effect("decode is yielded as it is in Effect.gen, failing with the AdapterError", () =>
    Effect.gen(function*() {
      const [openai] = Adapters.all.filter((adapter) => adapter.format === "openai")
      const decoded = yield* openai!.decode(chat)
      assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1"])
      const error = yield* Effect.flip(openai!.decode([{ role: "tool", tool_call_id: "nope", content: "x" }]))
      assert.instanceOf(error, Adapter.AdapterError)
      assert.strictEqual(error.index, 0)
    }))

  it.effect("make: decode is decodeResult's answer as an effect, the other fields as given", () =>
    Effect.gen(function*() {
      const refusal = new Adapter.AdapterError({ format: "openai", reason: "not today" })
      const decodeResult = () => Compat.Result.fail(refusal)
      const adapter = Adapter.make({ format: "openai", detect: () => false, decodeResult })
      assert.strictEqual(adapter.format, "openai")
      assert.strictEqual(adapter.decodeResult, decodeResult)
      assert.isUndefined(adapter.decodeSteps)
      assert.strictEqual(yield* Effect.flip(adapter.decode([])), refusal)
    }))

  it.effect("the deprecated toEffect takes decode's effect or decodeResult's value", () =>
    Effect.gen(function*() {
      const [openai] = Adapters.all.filter((adapter) => adapter.format === "openai")
      const fromEffect = yield* Adapter.toEffect(openai!.decode(chat))
      const fromResult = yield* Adapter.toEffect(openai!.decodeResult(chat))
      assert.deepStrictEqual(fromEffect.transcript, fromResult.transcript)
    }))
})
