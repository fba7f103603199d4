import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Production from "../../../../src/face/layers/Production.js"
import * as StoreDeadline from "../../../../src/face/layers/StoreDeadline.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as CompactionStore from "../../../../src/face/services/CompactionStore.js"
import * as SummaryCache from "../../../../src/face/services/SummaryCache.js"

/** A store that never answers, as a database whose tables another connection holds locked. */
const stalled = Layer.succeed(
  CompactionStore.CompactionStore,
  CompactionStore.CompactionStore.of({
    load: () => Effect.never,
    save: () => Effect.never,
    saveIfCurrent: () => Effect.never
  })
)

const engineOver = (store: Layer.Layer<CompactionStore.CompactionStore>) =>
  Production.layerEngine({
    engine: { policies: builtInPolicies },
    services: Testing.layer({ store }).pipe(StoreDeadline.within("3 seconds"))
  })

const transcript = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
const checkpoint = Effect.flatMap(
  Compactor.Compactor,
  (compactor) => compactor.checkpoint({ sessionId: "s1", transcript, model: "test-model", contextWindow: 200_000 })
)

describe("StoreDeadline", () => {
  it.effect("a checkpoint over a store that never answers fails with reason store once the deadline passes, not before", () =>
    Effect.gen(function*() {
      const running = yield* TestCompat.forkChild(Compat.result(checkpoint))
      yield* TestCompat.adjustClock("2999 millis")
      assert.isTrue(Option.isNone(yield* TestCompat.poll(running)), "still waiting within the deadline")
      yield* TestCompat.adjustClock("1 millis")
      const failed = yield* Fiber.join(running)
      assert.isTrue(TestCompat.isFailure(failed))
      const error = Option.getOrThrow(TestCompat.getFailure(failed))
      assert.strictEqual(error.reason, "store")
      assert.include(error.message, "the store did not answer within 3s")
    }).pipe(Effect.provide(engineOver(stalled))))

  it.effect("past a missed deadline the store is not waited for again until one more deadline has passed", () =>
    Effect.gen(function*() {
      const first = yield* TestCompat.forkChild(Compat.result(checkpoint))
      yield* TestCompat.adjustClock("3 seconds")
      assert.isTrue(TestCompat.isFailure(yield* Fiber.join(first)))
      const second = TestCompat.getFailure(yield* Compat.result(checkpoint))
      assert.isTrue(Option.isSome(second) && second.value.message.includes("did not answer within 3s a moment ago"))
      yield* TestCompat.adjustClock("3 seconds")
      const third = yield* TestCompat.forkChild(Compat.result(checkpoint))
      yield* TestCompat.adjustClock("1 second")
      assert.isTrue(Option.isNone(yield* TestCompat.poll(third)), "tried again: waits its deadline")
      yield* TestCompat.adjustClock("2 seconds")
      assert.isTrue(TestCompat.isFailure(yield* Fiber.join(third)))
    }).pipe(Effect.provide(engineOver(stalled))))

  it.effect("a store that answers in time is the store as it was", () =>
    Effect.gen(function*() {
      const { view } = yield* checkpoint
      assert.strictEqual(view.length, 1)
    }).pipe(Effect.provide(engineOver(Testing.layer()))))

  it.effect("a summary cache that never answers misses, and its store is skipped, at the deadline", () =>
    Effect.gen(function*() {
      const deadline = StoreDeadline.make(Duration.seconds(1))
      const cache = StoreDeadline.summaryCache(
        SummaryCache.SummaryCache.of({ lookup: () => Effect.never, store: () => Effect.never }),
        deadline
      )
      const key = {
        namespace: "n",
        schemaVersion: SummaryCache.schemaVersion,
        model: "m",
        request: "r",
        summarizer: { kind: "offline" }
      }
      const lookup = yield* TestCompat.forkChild(cache.lookup(key))
      const store = yield* TestCompat.forkChild(cache.store(key, "summary"))
      yield* TestCompat.adjustClock("1 second")
      assert.isTrue(Option.isNone(yield* Fiber.join(lookup)))
      yield* Fiber.join(store)
    }))
})
