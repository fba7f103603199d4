import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SummaryCacheMemory from "../../../../src/face/layers/SummaryCacheMemory.js"
import * as SummaryCache from "../../../../src/face/services/SummaryCache.js"

const key: SummaryCache.Key = {
  namespace: "compaction/v1",
  schemaVersion: SummaryCache.schemaVersion,
  model: "test-model",
  summarizer: { kind: "offline" },
  request: "system\n\nprompt"
}

describe("SummaryCacheMemory", () => {
  it.effect("a lookup before any store is a miss; after a store it is a hit with the stored summary", () =>
    Effect.gen(function*() {
      const cache = yield* SummaryCache.SummaryCache
      const memory = yield* SummaryCacheMemory.MemoryCache
      assert.isTrue(Option.isNone(yield* cache.lookup(key)))
      yield* cache.store(key, "the summary")
      assert.deepStrictEqual(Option.getOrUndefined(yield* cache.lookup(key)), "the summary")
      assert.deepStrictEqual(Option.getOrUndefined(yield* cache.lookup({ ...key })), "the summary")
      assert.deepStrictEqual(yield* memory.stats, { hits: 2, misses: 1, entries: 1 })
    }).pipe(Effect.provide(SummaryCacheMemory.layer)))

  it.effect("keys differing in namespace, schema version, model, summariser or request do not share an entry", () =>
    Effect.gen(function*() {
      const cache = yield* SummaryCache.SummaryCache
      const memory = yield* SummaryCacheMemory.MemoryCache
      yield* cache.store(key, "original")
      const others: ReadonlyArray<SummaryCache.Key> = [
        { ...key, namespace: "compaction/v2" },
        { ...key, schemaVersion: key.schemaVersion + 1 },
        { ...key, model: "other-model" },
        { ...key, summarizer: { kind: "chat-completions" } },
        { ...key, request: `${key.request} ` }
      ]
      for (const other of others) assert.isTrue(Option.isNone(yield* cache.lookup(other)))
      assert.deepStrictEqual(yield* memory.stats, { hits: 0, misses: 5, entries: 1 })
      for (const [i, other] of others.entries()) yield* cache.store(other, `variant ${i}`)
      assert.deepStrictEqual(Option.getOrUndefined(yield* cache.lookup(key)), "original")
      for (const [i, other] of others.entries()) {
        assert.deepStrictEqual(Option.getOrUndefined(yield* cache.lookup(other)), `variant ${i}`)
      }
      assert.deepStrictEqual(yield* memory.stats, { hits: 6, misses: 5, entries: 6 })
    }).pipe(Effect.provide(SummaryCacheMemory.layer)))

  it.effect("storing again under the same key replaces the summary and adds no entry", () =>
    Effect.gen(function*() {
      const cache = yield* SummaryCache.SummaryCache
      yield* cache.store(key, "first")
      yield* cache.store(key, "second")
      assert.deepStrictEqual(Option.getOrUndefined(yield* cache.lookup(key)), "second")
      assert.strictEqual((yield* Effect.flatMap(SummaryCacheMemory.MemoryCache, (m) => m.stats)).entries, 1)
    }).pipe(Effect.provide(SummaryCacheMemory.layer)))
})
