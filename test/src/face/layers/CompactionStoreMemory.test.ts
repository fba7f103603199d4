import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as CompactionStoreMemory from "../../../../src/face/layers/CompactionStoreMemory.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import * as CompactionStore from "../../../../src/face/services/CompactionStore.js"
import { effectProp } from "../../../support/Property.js"

const state = (sessionId: string, archivePath?: string): CompactionStore.CompactionState =>
  new CompactionStore.CompactionState({
    sessionId,
    compactions: 2,
    block: new Transcript.CompactedBlock({
      id: "compacted-1",
      content: "## Summary\nWork so far.",
      firstReplacedId: "m1",
      lastReplacedId: "m9"
    }),
    boundaryId: "m10",
    ...(archivePath === undefined ? {} : { archivePath }),
    updatedAt: 1_700_000_000_000
  })

describe("CompactionStoreMemory", () => {
  it.effect("a session never saved loads as none", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      assert.isTrue(Option.isNone(yield* store.load("nobody")))
    }).pipe(Effect.provide(CompactionStoreMemory.layer)))

  it.effect("a saved state loads back equal, decoded into a fresh instance, with and without an archive path", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      const memory = yield* CompactionStoreMemory.MemoryStore
      const archived = state("s1", "/tmp/archive/s1.jsonl")
      const plain = state("s2")
      yield* store.save(archived)
      yield* store.save(plain)
      const loaded = yield* store.load("s1")
      assert.isTrue(Option.isSome(loaded))
      if (Option.isSome(loaded)) {
        assert.instanceOf(loaded.value, CompactionStore.CompactionState)
        assert.instanceOf(loaded.value.block, Transcript.CompactedBlock)
        assert.notStrictEqual(loaded.value, archived)
        assert.deepStrictEqual(loaded.value, archived)
      }
      const loadedPlain = Option.getOrThrow(yield* store.load("s2"))
      assert.deepStrictEqual(loadedPlain, plain)
      assert.notProperty(loadedPlain, "archivePath")
      const stored = yield* memory.stored
      assert.deepStrictEqual([...stored.keys()].sort(), ["s1", "s2"])
      assert.deepStrictEqual(JSON.parse(stored.get("s1") ?? "null").block._tag, "Compacted")
    }).pipe(Effect.provide(CompactionStoreMemory.layer)))

  it.effect("an unchanged state is decoded once and read back as the same value; a changed one is decoded again", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      yield* store.save(state("s1"))
      const first = Option.getOrThrow(yield* store.load("s1"))
      const again = Option.getOrThrow(yield* store.load("s1"))
      assert.strictEqual(again, first)
      const later = new CompactionStore.CompactionState({ ...state("s1"), compactions: 3 })
      yield* store.save(later)
      const changed = Option.getOrThrow(yield* store.load("s1"))
      assert.notStrictEqual(changed, first)
      assert.deepStrictEqual(changed, later)
    }).pipe(Effect.provide(CompactionStoreMemory.layer)))

  it.effect("saving a session again replaces its state", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      yield* store.save(state("s1"))
      const later = new CompactionStore.CompactionState({ ...state("s1"), compactions: 3, boundaryId: "m20" })
      yield* store.save(later)
      assert.deepStrictEqual(Option.getOrUndefined(yield* store.load("s1")), later)
    }).pipe(Effect.provide(CompactionStoreMemory.layer)))

  it.effect("a state that would not come back from its JSON is refused at save, and nothing is stored", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      const broken = new CompactionStore.CompactionState({ ...state("s1"), updatedAt: Number.NaN })
      const saved = Option.getOrUndefined(TestCompat.getFailure(yield* Compat.result(store.save(broken))))
      assert.isTrue(saved?._tag === "StoreError" && saved.sessionId === "s1")
      assert.isTrue(Option.isNone(yield* store.load("s1")))
    }).pipe(Effect.provide(CompactionStoreMemory.layer)))

  effectProp(
    "any state either loads back equal after its save, or its save fails with StoreError and nothing is stored",
    [TestCompat.arbitrary(CompactionStore.CompactionState)],
    ([generated]) =>
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        const saved = TestCompat.getFailure(yield* Compat.result(store.save(generated)))
        const loaded = yield* store.load(generated.sessionId)
        if (Option.isNone(saved)) {
          assert.isTrue(Option.isSome(loaded))
          // Compared as stored: JSON has one zero, so -0 comes back as 0.
          const encode = (value: CompactionStore.CompactionState) =>
            JSON.stringify(Schema.encodeSync(CompactionStore.CompactionState)(value))
          if (Option.isSome(loaded)) assert.strictEqual(encode(loaded.value), encode(generated))
        } else {
          assert.strictEqual(saved.value._tag, "StoreError")
          assert.isFalse(Number.isFinite(generated.updatedAt), "only a non-finite number fails to survive JSON")
          assert.isTrue(Option.isNone(loaded))
        }
      }).pipe(Effect.provide(CompactionStoreMemory.layer))
  )

  it.effect("the failing store fails every load and save with a StoreError carrying the reason", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      const loaded = yield* Compat.result(store.load("s1"))
      const saved = yield* Compat.result(store.save(state("s2")))
      assert.deepStrictEqual(
        loaded,
        Compat.Result.fail(new CompactionStore.StoreError({ sessionId: "s1", reason: "disk full" }))
      )
      assert.deepStrictEqual(
        saved,
        Compat.Result.fail(new CompactionStore.StoreError({ sessionId: "s2", reason: "disk full" }))
      )
    }).pipe(Effect.provide(CompactionStoreMemory.layerFailing("disk full"))))
})
