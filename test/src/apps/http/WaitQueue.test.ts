import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as fc from "fast-check"
import * as WaitQueue from "../../../../src/apps/http/WaitQueue.js"
import { effectProp, prop } from "../../../support/Property.js"

describe("WaitQueue", () => {
  it.effect("requests past the running limit start in the order they arrived, each once a place is freed", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 2, waiting: 10, maxWait: "1 minute" })
      const started: Array<number> = []
      const gates = yield* Effect.forEach(Array.from({ length: 7 }, (_, i) => i), () => Deferred.make<void>())
      const fibers = yield* Effect.forEach(
        gates,
        (gate, index) =>
          TestCompat.forkChild(queue.run(Effect.andThen(Effect.sync(() => started.push(index)), Deferred.await(gate))))
      )
      yield* Compat.yieldNow
      assert.deepStrictEqual(started, [0, 1])
      assert.deepStrictEqual(
        Option.some(yield* queue.stats).pipe(Option.map((stats) => [stats.running, stats.waiting])),
        Option.some([2, 5])
      )
      // Freed out of order: the places still go to the waiters in their order.
      for (const index of [1, 0, 3, 2, 5, 4, 6]) {
        const before = started.length
        yield* Deferred.succeed(gates[index]!, undefined)
        // The waiter handed the place has started before the next place is freed.
        for (let turns = 0; turns < 100 && started.length === before && before < gates.length; turns++) {
          yield* Compat.yieldNow
        }
      }
      yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual(started, [0, 1, 2, 3, 4, 5, 6])
      const stats = yield* queue.stats
      assert.strictEqual(stats.running, 0)
      assert.strictEqual(stats.waiting, 0)
    }))

  it.effect("a request past the queue's bound is refused at once as full, with a Retry-After of at least 1 s", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 1, waiting: 1, maxWait: "1 minute" })
      const gate = yield* Deferred.make<void>()
      const running = yield* TestCompat.forkChild(queue.run(Deferred.await(gate)))
      const waiting = yield* TestCompat.forkChild(queue.run(Effect.succeed("second")))
      yield* Compat.yieldNow
      const refused = TestCompat.getFailure(yield* Compat.result(queue.run(Effect.succeed("third"))))
      assert.isTrue(Option.isSome(refused))
      if (Option.isSome(refused)) {
        assert.strictEqual(refused.value.reason, "full")
        assert.isAtLeast(refused.value.retryAfterSeconds, 1)
      }
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(running)
      assert.strictEqual(yield* Fiber.join(waiting), "second")
    }))

  it.effect("a request that waits past the deadline is refused as such and leaves the queue; the next one still gets the place", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 1, waiting: 5, maxWait: "2 seconds" })
      const gate = yield* Deferred.make<void>()
      const running = yield* TestCompat.forkChild(queue.run(Deferred.await(gate)))
      const late = yield* TestCompat.forkChild(Compat.result(queue.run(Effect.succeed("late"))))
      yield* Compat.yieldNow
      yield* TestCompat.adjustClock("1 second")
      const patient = yield* TestCompat.forkChild(queue.run(Effect.succeed("patient")))
      yield* Compat.yieldNow
      yield* TestCompat.adjustClock("1500 millis")
      const outcome = TestCompat.getFailure(yield* Fiber.join(late))
      assert.isTrue(Option.isSome(outcome) && outcome.value.reason === "deadline")
      assert.strictEqual((yield* queue.stats).waiting, 1)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(running)
      assert.strictEqual(yield* Fiber.join(patient), "patient")
    }))

  it.effect("a waiter whose client goes away takes no place, and the place goes to the one behind it", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 1, waiting: 5, maxWait: "1 minute" })
      const gate = yield* Deferred.make<void>()
      const running = yield* TestCompat.forkChild(queue.run(Deferred.await(gate)))
      const leaving = yield* TestCompat.forkChild(queue.run(Effect.succeed("never")))
      const behind = yield* TestCompat.forkChild(queue.run(Effect.succeed("behind")))
      yield* Compat.yieldNow
      yield* Fiber.interrupt(leaving)
      assert.strictEqual((yield* queue.stats).waiting, 1)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(running)
      assert.strictEqual(yield* Fiber.join(behind), "behind")
      assert.strictEqual((yield* queue.stats).running, 0)
    }))

  it.effect("requests let in before their bodies are read count against the bound: past it the next is refused before it reads", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 1, waiting: 2, maxWait: "1 minute" })
      const scopes = yield* Effect.forEach([1, 2, 3], () => Scope.make())
      const admitted = yield* Effect.forEach(scopes, (scope) => Compat.provideScope(queue.admit(100), scope))
      assert.deepStrictEqual(
        yield* Effect.map(queue.stats, (stats) => [stats.reading, stats.running, stats.waiting, stats.bytes]),
        [3, 0, 0, 300]
      )
      const refused = yield* Effect.flip(Effect.scoped(queue.admit(100)))
      assert.strictEqual(refused.reason, "full")
      assert.isAtLeast(refused.retryAfterSeconds, 1)
      // One body read: it runs; one that went away frees its place for the next arrival.
      assert.strictEqual(yield* admitted[0]!.run(Effect.succeed("ran")), "ran")
      yield* Scope.close(scopes[1]!, Exit.void)
      const stats = yield* queue.stats
      assert.deepStrictEqual([stats.reading, stats.running, stats.bytes], [1, 0, 200])
      yield* Effect.scoped(queue.admit(100))
      yield* Effect.forEach(scopes, (scope) => Scope.close(scope, Exit.void))
      assert.strictEqual((yield* queue.stats).bytes, 0)
    }))

  it.effect("the bytes of the bodies let in are held to the budget; a request alone is let in whatever its size", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 2, waiting: 10, maxWait: "1 minute", bytes: 1_000 })
      const scope = yield* Scope.make()
      yield* Compat.provideScope(queue.admit(2_000), scope)
      const refused = yield* Effect.flip(Effect.scoped(queue.admit(1)))
      assert.strictEqual(refused.reason, "bytes")
      assert.include(refused.message, "1000 bytes")
      yield* Scope.close(scope, Exit.void)
      const next = yield* Scope.make()
      yield* Compat.provideScope(queue.admit(600), next)
      yield* Effect.scoped(queue.admit(400))
      assert.strictEqual((yield* Effect.flip(Effect.scoped(queue.admit(401)))).reason, "bytes")
      yield* Scope.close(next, Exit.void)
    }))

  it.effect("the Retry-After of a full queue follows the measured drain rate", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 1, waiting: 2, maxWait: "1 minute" })
      // Each run takes 4 s of the test clock: one place frees every 4 s.
      const slow = queue.run(Effect.sleep("4 seconds"))
      const first = yield* TestCompat.forkChild(slow)
      yield* Compat.yieldNow
      yield* TestCompat.adjustClock("4 seconds")
      yield* Fiber.join(first)
      assert.deepStrictEqual((yield* queue.stats).drainPerSecond, Option.some(0.25))
      const fibers = yield* Effect.forEach([1, 2, 3], () => TestCompat.forkChild(slow))
      yield* Compat.yieldNow
      const refused = yield* Effect.flip(queue.run(Effect.void))
      // Two waiting and itself behind them, at 0.25 a second: 12 s.
      assert.strictEqual(refused.retryAfterSeconds, 12)
      yield* TestCompat.adjustClock("12 seconds")
      yield* Effect.forEach(fibers, Fiber.join)
    }))

  it.effect("before any run has ended, the Retry-After comes from how long the running ones have run", () =>
    Effect.gen(function*() {
      const queue = yield* WaitQueue.make({ running: 2, waiting: 1, maxWait: "10 minutes" })
      const gate = yield* Deferred.make<void>()
      const fibers = yield* Effect.forEach([1, 2, 3], () => TestCompat.forkChild(queue.run(Deferred.await(gate))))
      yield* Compat.yieldNow
      yield* TestCompat.adjustClock("5 seconds")
      // Two places, each taken 5 s so far: at least 5 s a run, 0.4 places a second; two ahead (one waiting and itself): 5 s.
      const refused = yield* Effect.flip(queue.run(Effect.void))
      assert.strictEqual(refused.retryAfterSeconds, 5)
      yield* Deferred.succeed(gate, undefined)
      yield* Effect.forEach(fibers, Fiber.join)
    }))

  prop(
    "Retry-After is never 0 nor past an hour, whatever the rate and the queue",
    [
      fc.nat({ max: 100_000 }),
      fc.option(fc.double({ min: 0, max: 1e9, noNaN: true }), { nil: undefined }),
      fc.integer({ min: 0, max: 10_000_000 })
    ],
    ([ahead, rate, maxWaitMs]) => {
      const seconds = WaitQueue.retryAfterSeconds(ahead, Compat.fromNullishOr(rate), maxWaitMs)
      assert.isTrue(Number.isInteger(seconds))
      assert.isAtLeast(seconds, 1)
      assert.isAtMost(seconds, 3_600)
    }
  )

  effectProp(
    "however requests arrive, finish and leave, no more than the running limit run at once, none waits past the bound, and every place is given back",
    [
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 6 }),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.boolean()), { minLength: 1, maxLength: 30 })
    ],
    ([running, waiting, requests]) =>
      TestCompat.withTestClock(Effect.gen(function*() {
        const queue = yield* WaitQueue.make({ running, waiting, maxWait: "50 millis" })
        let now = 0
        let most = 0
        const fibers = yield* Effect.forEach(requests, ([millis]) =>
          TestCompat.forkChild(Compat.result(queue.run(Effect.acquireUseRelease(
            Effect.sync(() => (most = Math.max(most, ++now))),
            () =>
              Effect.sleep(`${millis} millis`),
            () => Effect.sync(() => now--)
          )))))
        yield* Compat.yieldNow
        assert.isAtMost((yield* queue.stats).waiting, waiting)
        yield* Effect.forEach(requests, ([, leaves], index) => (leaves ? Fiber.interrupt(fibers[index]!) : Effect.void))
        yield* TestCompat.adjustClock("1 second")
        yield* Effect.forEach(fibers, Fiber.await)
        assert.isAtMost(most, running)
        const stats = yield* queue.stats
        assert.strictEqual(stats.running, 0)
        assert.strictEqual(stats.waiting, 0)
      })),
    { fastCheck: { numRuns: 30 } }
  )
})
