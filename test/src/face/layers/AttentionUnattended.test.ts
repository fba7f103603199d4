import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as AttentionUnattended from "../../../../src/face/layers/AttentionUnattended.js"
import * as Attention from "../../../../src/face/services/Attention.js"
import { effectProp } from "../../../support/Property.js"

describe("AttentionUnattended", () => {
  it.effect("unattended: nobody is attending and the choice is trim, at once, without asking", () =>
    Effect.gen(function*() {
      const attention = yield* Attention.Attention
      assert.isFalse(yield* attention.attended)
      // Run synchronously: an answer that waited for someone would throw here.
      const choices = Effect.runSync(Effect.forEach(["summariser failed twice", "again"], attention.choose))
      assert.deepStrictEqual(choices, ["trim", "trim"])
    }).pipe(Effect.provide(AttentionUnattended.layer)))

  it.effect("scripted: someone is attending, answers in order, then trim, and every problem is recorded", () =>
    Effect.gen(function*() {
      const attention = yield* Attention.Attention
      const scripted = yield* AttentionUnattended.ScriptedAttention
      assert.isTrue(yield* attention.attended)
      assert.deepStrictEqual(yield* scripted.problems, [])
      const answers = yield* Effect.forEach(["first failure", "second failure", "third failure"], attention.choose)
      assert.deepStrictEqual(answers, ["retry", "retry", "trim"])
      assert.strictEqual(yield* attention.choose("fourth failure"), "trim")
      assert.deepStrictEqual(yield* scripted.problems, [
        "first failure",
        "second failure",
        "third failure",
        "fourth failure"
      ])
    }).pipe(Effect.provide(AttentionUnattended.layerScripted(["retry", "retry", "trim"]))))

  effectProp(
    "scripted: answer n is choice n while the choices last, then trim",
    [fc.array(fc.constantFrom<Attention.Choice>("retry", "trim"), { maxLength: 10 }), fc.nat({ max: 5 })],
    ([choices, extra]) =>
      Effect.gen(function*() {
        const attention = yield* Attention.Attention
        const problems = Array.from({ length: choices.length + extra }, (_, i) => `problem ${i}`)
        const answers = yield* Effect.forEach(problems, attention.choose)
        assert.deepStrictEqual(answers, [...choices, ...Array.from({ length: extra }, () => "trim")])
        assert.deepStrictEqual(
          yield* Effect.flatMap(AttentionUnattended.ScriptedAttention, (s) => s.problems),
          problems
        )
      }).pipe(Effect.provide(AttentionUnattended.layerScripted(choices)))
  )
})
