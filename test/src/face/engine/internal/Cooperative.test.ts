import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as Cooperative from "../../../../../src/face/engine/internal/Cooperative.js"
import { prop } from "../../../../support/Property.js"

/** How many times steps pause before they end, and what they end with. */
const drive = <A>(steps: Cooperative.Steps<A>): { readonly pauses: number; readonly value: A } => {
  let pauses = 0
  for (;;) {
    const next = steps.next()
    if (next.done === true) return { pauses, value: next.value }
    pauses++
  }
}

describe("Cooperative.mapSteps and map", () => {
  prop("map the items as Array.map does, pausing once every itemsPerStep items", [
    fc.array(fc.integer(), { maxLength: 300 })
  ], ([items]) => {
    const f = (item: number, index: number) => item * 2 + index
    const { pauses, value } = drive(Cooperative.mapSteps(items, f))
    assert.deepStrictEqual(value, items.map(f))
    assert.strictEqual(pauses, Math.floor(items.length / Cooperative.itemsPerStep))
  })

  it.effect("map inside an Effect, pausing at every step, gives the same array; forEach calls f on each item in order", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 100 }, (_, i) => i)
      const everyStep: Cooperative.Slice = { spent: () => true, pause: Compat.yieldNow }
      assert.deepStrictEqual(
        yield* Cooperative.map(items, (item) => item + 1, everyStep),
        items.map((item) => item + 1)
      )
      const seen: Array<number> = []
      yield* Cooperative.forEach(items, (item, index) => void seen.push(item * 1000 + index), everyStep)
      assert.deepStrictEqual(seen, items.map((item, index) => item * 1000 + index))
    }))
})
