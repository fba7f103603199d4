/**
 * `StoreDeadline` on Effect 4 (the module compiled for both Effects, on the Effect 4 layers entry):
 * the deadline on the stores a layer gives, as `test/src/face/layers/StoreDeadline.test.ts` checks it on
 * Effect 3, without the engine (`Production.layerEngine` is not yet compiled for Effect 4). A call
 * of a store that never answers fails as its store's failure once the deadline passes, not before;
 * past a missed deadline the store is not waited for again until one more deadline has passed; a
 * cache that never answers misses; an archive that never answers fails with `ArchiveError`; and
 * `within` bounds every store a layer gives, the other services as they are.
 */
import { assert, describe, it } from "@effect/vitest"
import { StoreDeadline, Testing } from "context-compressor/layers"
import { CompactionStore, Settings, SummaryCache, TranscriptArchive } from "context-compressor/services"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"

/** A store that never answers, as a database whose tables another connection holds locked. */
const stalledStore = CompactionStore.CompactionStore.of({
  load: () => Effect.never,
  save: () => Effect.never,
  saveIfCurrent: () => Effect.never
})

const reasonOf = (result: Result.Result<unknown, CompactionStore.StoreError>): string | undefined =>
  Result.isFailure(result) ? result.failure.reason : undefined

describe("StoreDeadline on Effect 4", () => {
  it.effect("a call of a store that never answers fails with StoreError once the deadline passes, not before", () =>
    Effect.gen(function*() {
      const store = StoreDeadline.compactionStore(stalledStore, StoreDeadline.make("3 seconds"))
      const running = yield* Effect.forkChild(Effect.result(store.load("s1")))
      yield* TestClock.adjust("2999 millis")
      assert.isUndefined(running.pollUnsafe(), "still waiting within the deadline")
      yield* TestClock.adjust("1 millis")
      const failed = yield* Fiber.join(running)
      assert.strictEqual(reasonOf(failed), "the store did not answer within 3s")
    }))

  it.effect("past a missed deadline the store is not waited for again until one more deadline has passed", () =>
    Effect.gen(function*() {
      const store = StoreDeadline.compactionStore(stalledStore, StoreDeadline.make(Duration.seconds(3)))
      const first = yield* Effect.forkChild(Effect.result(store.load("s1")))
      yield* TestClock.adjust("3 seconds")
      assert.isTrue(Result.isFailure(yield* Fiber.join(first)))
      const second = yield* Effect.result(store.load("s2"))
      assert.strictEqual(reasonOf(second), "the store did not answer within 3s a moment ago")
      yield* TestClock.adjust("3 seconds")
      const third = yield* Effect.forkChild(Effect.result(store.load("s1")))
      yield* TestClock.adjust("1 second")
      assert.isUndefined(third.pollUnsafe(), "tried again: waits its deadline")
      yield* TestClock.adjust("2 seconds")
      assert.isTrue(Result.isFailure(yield* Fiber.join(third)))
    }))

  it.effect("a summary cache that never answers misses, and its store is skipped, at the deadline", () =>
    Effect.gen(function*() {
      const cache = StoreDeadline.summaryCache(
        SummaryCache.SummaryCache.of({ lookup: () => Effect.never, store: () => Effect.never }),
        StoreDeadline.make("1 second")
      )
      const key = {
        namespace: "n",
        schemaVersion: SummaryCache.schemaVersion,
        model: "m",
        request: "r",
        summarizer: { kind: "offline" }
      }
      const lookup = yield* Effect.forkChild(cache.lookup(key))
      const store = yield* Effect.forkChild(cache.store(key, "summary"))
      yield* TestClock.adjust("1 second")
      assert.isTrue(Option.isNone(yield* Fiber.join(lookup)))
      yield* Fiber.join(store)
    }))

  it.effect("an archive that never answers fails its write with ArchiveError at the deadline", () =>
    Effect.gen(function*() {
      const archive = StoreDeadline.transcriptArchive(
        TranscriptArchive.TranscriptArchive.of({ locate: () => "archive/s1", write: () => Effect.never }),
        StoreDeadline.make("1 second")
      )
      const writing = yield* Effect.forkChild(
        Effect.result(archive.write({ sessionId: "s1", compaction: 1, messages: [] }))
      )
      yield* TestClock.adjust("1 second")
      const written = yield* Fiber.join(writing)
      assert.isTrue(Result.isFailure(written) && written.failure._tag === "ArchiveError")
      if (Result.isFailure(written)) assert.strictEqual(written.failure.path, "archive/s1")
    }))

  it.effect("within bounds the stores a layer gives and leaves its other services as they are", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      const loading = yield* Effect.forkChild(Effect.result(store.load("s1")))
      yield* TestClock.adjust("500 millis")
      assert.strictEqual(reasonOf(yield* Fiber.join(loading)), "the store did not answer within 500ms")
      const settings = yield* Effect.flatMap(Settings.Settings, (settings) => settings.current)
      assert.strictEqual(settings.triggerPct, 60)
    }).pipe(
      Effect.provide(
        Testing.layer({
          store: Layer.succeed(CompactionStore.CompactionStore, stalledStore),
          settings: { triggerPct: 60 }
        })
          .pipe(StoreDeadline.within("500 millis"))
      )
    ))
})
