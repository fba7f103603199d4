import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Engine from "../../../../src/apps/promise/Engine.js"
import * as AttentionFiber from "../../../../src/face/layers/AttentionFiber.js"
import * as Attention from "../../../../src/face/services/Attention.js"

describe("Engine.attentionOf", () => {
  it.effect("the Promise API's onQuestion, set on the call's fiber, is asked with the call's session; an answer other than retry, or a callback that throws, is trim", () =>
    Effect.gen(function*() {
      const attention = yield* Attention.Attention
      const questions: Array<string> = []
      const on = (answer: () => string) =>
        Effect.locally(
          AttentionFiber.currentAttention,
          Option.some(
            Engine.attentionOf(
              "s7",
              async ({ sessionId, problem }) => (questions.push(`${sessionId}: ${problem}`), answer() as "retry")
            )
          )
        )
      assert.strictEqual(yield* on(() => "retry")(attention.choose("p1")), "retry")
      assert.strictEqual(yield* on(() => "maybe")(attention.choose("p2")), "trim")
      assert.strictEqual(
        yield* on(() => {
          throw new Error("callback failed")
        })(attention.choose("p3")),
        "trim"
      )
      assert.isTrue(yield* on(() => "retry")(attention.attended))
      assert.deepStrictEqual(questions, ["s7: p1", "s7: p2", "s7: p3"])
    }).pipe(Effect.provide(AttentionFiber.layer)))
})
