/**
 * The in-flight sharing of the summary policy (`InFlight.make`), on both Effects: the Compactor
 * shares one summary between the checkpoints that ask for it at once. A waiter gets the maker's
 * value through `whenShared`, and the maker's failure; when the maker is interrupted, the waiter
 * makes the value itself.
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as InFlight from "../../../../../../src/face/engine/internal/checkpoint/InFlight.js"

/** A maker that counts its runs and waits for `gate` before it gives the run's number (or fails with it). */
const gatedMaker = (gate: Deferred.Deferred<void>, options: { readonly fail?: boolean } = {}) =>
  Effect.map(Ref.make(0), (runs) => ({
    runs: Ref.get(runs),
    make: (): Effect.Effect<number, string> =>
      Effect.gen(function*() {
        const run = yield* Ref.updateAndGet(runs, (n) => n + 1)
        yield* Deferred.await(gate)
        return options.fail === true ? yield* Effect.fail(`run ${run} failed`) : run
      })
  }))

/** Lets the forked fibers run until each waits: for the gate, or for the maker's value. */
const settle = Effect.gen(function*() {
  for (let turn = 0; turn < 10; turn++) yield* Compat.yieldNow
})

const shared = (value: number) => value + 100

/** A maker of key "k" and then a waiter for it, each forked and let run until it waits. */
const makerThenWaiter = (once: InFlight.InFlight<number, string>, make: () => Effect.Effect<number, string>) =>
  Effect.gen(function*() {
    const maker = yield* TestCompat.forkChild(once("k", make, shared))
    yield* settle
    const waiter = yield* TestCompat.forkChild(once("k", make, shared))
    yield* settle
    return { maker, waiter }
  })

describe("InFlight", () => {
  it.effect("a key asked for while it is being made waits for the maker and gets whenShared of its value", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { make, runs } = yield* gatedMaker(gate)
      const once = InFlight.make<number, string>()
      const { maker, waiter } = yield* makerThenWaiter(once, make)
      const other = yield* TestCompat.forkChild(once("other", make, shared))
      yield* settle
      assert.strictEqual(yield* runs, 2, "the waiter did not make it; the other key did")
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(maker), 1)
      assert.strictEqual(yield* Fiber.join(waiter), 101)
      assert.strictEqual(yield* Fiber.join(other), 2)
      // Done: the key is free again, and the next asker makes it anew.
      assert.strictEqual(yield* once("k", make, shared), 3)
    }))

  it.effect("a waiter gets the maker's failure", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { make, runs } = yield* gatedMaker(gate, { fail: true })
      const once = InFlight.make<number, string>()
      const { maker, waiter } = yield* makerThenWaiter(once, make)
      yield* Deferred.succeed(gate, undefined)
      const [made, waited] = [yield* Fiber.await(maker), yield* Fiber.await(waiter)]
      assert.deepStrictEqual(made, Exit.fail("run 1 failed"))
      assert.deepStrictEqual(waited, Exit.fail("run 1 failed"))
      assert.strictEqual(yield* runs, 1)
    }))

  it.effect("when the maker is interrupted, the waiter makes it itself", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { make, runs } = yield* gatedMaker(gate)
      const once = InFlight.make<number, string>()
      const { maker, waiter } = yield* makerThenWaiter(once, make)
      assert.strictEqual(yield* runs, 1)
      yield* Fiber.interrupt(maker)
      yield* settle
      assert.strictEqual(yield* runs, 2, "the waiter made it itself")
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(waiter), 2, "its own value, not whenShared of another's")
    }))
})
