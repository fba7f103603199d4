import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as AttentionFiber from "../../../../src/face/layers/AttentionFiber.js"
import * as Attention from "../../../../src/face/services/Attention.js"

const asks = (answer: "retry" | "trim", asked: Array<string>) =>
  Attention.Attention.of({
    attended: Effect.succeed(true),
    choose: (problem) => Effect.sync(() => (asked.push(problem), answer))
  })

describe("AttentionFiber", () => {
  it.effect("outside attend the session is unattended and trims; inside, the fiber's attention is asked, by the fibers it forks too", () =>
    Effect.gen(function*() {
      const attention = yield* Attention.Attention
      assert.isFalse(yield* attention.attended)
      assert.strictEqual(yield* attention.choose("the summariser failed twice"), "trim")
      const asked: Array<string> = []
      const inside = Effect.all([
        attention.attended,
        attention.choose("first"),
        Effect.flatMap(TestCompat.forkChild(attention.choose("forked")), Fiber.join)
      ])
      assert.deepStrictEqual(yield* AttentionFiber.attend(asks("retry", asked))(inside), [true, "retry", "retry"])
      assert.deepStrictEqual(asked, ["first", "forked"])
    }).pipe(Effect.provide(AttentionFiber.layer)))
})
