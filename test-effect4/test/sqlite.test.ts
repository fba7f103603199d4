/**
 * SQLite on Effect 4 (docs/effect4.md): the store and the cache of `Production.layerSqlite` on
 * `node:sqlite`, run by the shared core's statements and migrations. What one process saves, a
 * new process reads back the same; versioned saves keep the compare-and-set rule on SQL; the
 * cache keeps the summary stored first; and a file that cannot be opened degrades the cache and
 * fails the store's calls with the reason, without failing the layer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as CompactionStoreSql from "../../src/face/layers/CompactionStoreSql.js"
import * as Production from "../../src/face/layers/Production.js"
import * as SummaryCacheSql from "../../src/face/layers/SummaryCacheSql.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as CompactionStore from "../../src/face/services/CompactionStore.js"
import * as SummaryCache from "../../src/face/services/SummaryCache.js"

const here = fileURLToPath(new URL(".", import.meta.url))

const state = (compactions: number) =>
  new CompactionStore.CompactionState({
    sessionId: "s1",
    compactions,
    block: new Transcript.CompactedBlock({
      id: "b",
      content: `summary ${compactions}`,
      firstReplacedId: "m1",
      lastReplacedId: "m9"
    }),
    boundaryId: "m10",
    pinnedIds: ["m2"],
    cutMessages: [new Transcript.UserMessage({ id: "m3", content: "Fix the parser." })],
    updatedAt: 1_700_000_000_000
  })

const key = {
  namespace: "ns",
  schemaVersion: SummaryCache.schemaVersion,
  model: "m",
  summarizer: { kind: "custom" },
  request: "R"
}

const readBack = (directory: string) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        "./support/effect4-resolve.mjs",
        "support/SqliteReadBack.ts",
        directory,
        JSON.stringify(key)
      ],
      { cwd: here, encoding: "utf8" }
    )
  )

describe("SQLite on Effect 4 over node:sqlite", () => {
  // Live: the summary is stored at the real time, which the new process reads it at.
  it.live("what layerSqlite saves in a folder, a new process reads back the same", () =>
    Effect.gen(function*() {
      const directory = mkdtempSync(join(tmpdir(), "e4-sqlite-"))
      yield* Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        const cache = yield* SummaryCache.SummaryCache
        assert.strictEqual((yield* store.saveIfCurrent(state(1), 0))._tag, "Saved")
        const conflict = yield* store.saveIfCurrent(state(3), 0)
        assert.isTrue(conflict._tag === "Conflict" && conflict.current.compactions === 1)
        assert.strictEqual((yield* store.saveIfCurrent(state(2), 1))._tag, "Saved")
        yield* cache.store(key, "the first summary")
        yield* cache.store(key, "a second summary of the same key")
        const stats = yield* (yield* SummaryCacheSql.SqlCache).stats
        assert.deepStrictEqual([stats.stores, stats.entries, Option.isNone(stats.degraded)], [1, 1, true])
      }).pipe(Effect.provide(Production.layerSqlite({ directory })))
      const read = readBack(directory)
      assert.deepStrictEqual(read.state, Schema.encodeSync(CompactionStore.CompactionState)(state(2)))
      assert.strictEqual(read.summary, "the first summary")
    }))

  it.effect("the session's memory and reported tokens are kept by the store on SQL", () =>
    Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      assert.isUndefined(yield* store.memory!.reported("s1"))
      yield* store.memory!.report("s1", { tokens: 1234, basis: "provider" })
      yield* store.memory!.save("s1", "v1", "{}")
      assert.deepStrictEqual(yield* store.memory!.reported("s1"), { tokens: 1234, basis: "provider" })
      const memory = yield* store.memory!.load("s1")
      assert.deepStrictEqual(Option.getOrUndefined(memory), { version: "v1", memory: "{}", reportedTokens: 1234 })
    }).pipe(
      Effect.provide(CompactionStoreSql.layerSqlite({ filename: join(mkdtempSync(join(tmpdir(), "e4-")), "state.db") }))
    ))

  it.effect("a file that cannot be opened degrades the cache to misses and fails the store's calls with why", () =>
    Effect.gen(function*() {
      const blocker = join(mkdtempSync(join(tmpdir(), "e4-")), "file")
      writeFileSync(blocker, "not a folder")
      const filename = join(blocker, "state.db")
      const loaded = yield* Effect.flip(
        Effect.flatMap(Effect.service(CompactionStore.CompactionStore), (store) => store.load("s1")).pipe(
          Effect.provide(CompactionStoreSql.layerSqlite({ filename }))
        )
      )
      assert.include(loaded.reason, `cannot open ${filename}`)
      const stats = yield* Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* (yield* SummaryCache.SummaryCache).lookup(key)))
        return yield* (yield* SummaryCacheSql.SqlCache).stats
      }).pipe(Effect.provide(SummaryCacheSql.layerSqlite({ filename: join(blocker, "cache.db") })))
      assert.strictEqual(stats.misses, 1)
      assert.isTrue(Option.isSome(stats.degraded))
    }))
})
