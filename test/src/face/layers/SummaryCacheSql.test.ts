import { SqlClient } from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { afterAll, assert, describe, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as AttentionUnattended from "../../../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../../../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as SqlMigrations from "../../../../src/face/layers/sql/SqlMigrations.js"
import * as SummarizerScripted from "../../../../src/face/layers/SummarizerScripted.js"
import * as SummaryCacheSql from "../../../../src/face/layers/SummaryCacheSql.js"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as SummaryCache from "../../../../src/face/services/SummaryCache.js"
import { layerProp } from "../../../support/Property.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"
import * as Generated from "../../../transcripts.js"

const directory = mkdtempSync(join(tmpdir(), "summary-cache-sql-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
let files = 0
const freshFile = () => join(directory, `cache-${files++}.db`)

/** A logger that records the warnings, to see what the cache told the user. */
const captureWarnings = () => {
  const warnings: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (TestCompat.isWarning(logLevel)) warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return { warnings, layer: TestCompat.addLogger(logger) }
}

const key = (request: string, overrides: Partial<SummaryCache.Key> = {}): SummaryCache.Key => ({
  namespace: "compaction/v1",
  schemaVersion: SummaryCache.schemaVersion,
  model: "test-model",
  summarizer: { kind: "offline" },
  request,
  ...overrides
})

const migrated = Layer.effectDiscard(Effect.orDie(SqlMigrations.run))

// Compared as plain values: chai's deep equality walks an Option's iterator, so some(x) equals none().
const summaryOf = (found: Option.Option<string>) => Option.getOrUndefined(found)
const plain = (stats: SummaryCacheSql.Stats) => ({ ...stats, degraded: Option.getOrUndefined(stats.degraded) })

const services = Effect.all({ cache: SummaryCache.SummaryCache, inspect: SummaryCacheSql.SqlCache })

for (const dialect of SqlDatabases.dialects) {
  /** The cache on an empty database of the dialect, migrated, with the client for a test to read and tamper with. */
  const onDatabase = (options: SummaryCacheSql.Options = {}) =>
    Layer.mergeAll(SummaryCacheSql.layer(options), migrated).pipe(Layer.provideMerge(dialect.fresh))

  /** A cache with counters of its own on the shared database of a `layer` block, its table emptied first. */
  const emptied = (options: SummaryCacheSql.Options = {}) =>
    Layer.merge(
      SummaryCacheSql.layer(options),
      Layer.effectDiscard(Effect.orDie(Effect.flatMap(SqlClient, (sql) => sql`DELETE FROM summary_cache`)))
    )

  SqlDatabases.describeOn(dialect, "SummaryCacheSql", () => {
    it.effect("a stored summary is found again, the first stored for a key stays; the counters count hits, misses, stores, entries and UTF-8 bytes", () =>
      Effect.gen(function*() {
        const { cache, inspect } = yield* services
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), undefined)
        yield* cache.store(key("a"), "résumé")
        yield* cache.store(key("b"), "plain")
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "résumé")
        assert.strictEqual(summaryOf(yield* cache.lookup({ ...key("a") })), "résumé")
        yield* cache.store(key("b"), "second")
        assert.strictEqual(
          summaryOf(yield* cache.lookup(key("b"))),
          "plain",
          "another worker's later summary does not replace it"
        )
        assert.deepStrictEqual(plain(yield* inspect.stats), {
          hits: 3,
          misses: 1,
          stores: 2,
          entries: 2,
          bytes: Buffer.byteLength("résumé") + "plain".length,
          degraded: undefined
        })
      }).pipe(Effect.provide(onDatabase())))

    it.effect("a summary the gate refused is replaced when the store names it, and only that one", () =>
      Effect.gen(function*() {
        const { cache } = yield* services
        yield* cache.store(key("a"), "refused")
        yield* cache.store(key("a"), "good")
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "refused")
        yield* cache.store(key("a"), "good", { replacing: "refused" })
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "good")
        // Another worker that also saw the refused one does not undo the replacement.
        yield* cache.store(key("a"), "late", { replacing: "refused" })
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "good")
      }).pipe(Effect.provide(onDatabase())))

    it.effect("a lookup matches namespace, schema version and model in the row, not only the digest", () =>
      Effect.gen(function*() {
        const { cache } = yield* services
        const sql = yield* SqlClient
        const tampered: ReadonlyArray<[string, string | number]> = [["namespace", "older-prompts"], [
          "schema_version",
          3
        ], ["model", "other-model"]]
        for (const [column, value] of tampered) {
          yield* cache.store(key(column), "summary")
          yield* sql`UPDATE summary_cache SET ${sql(column)} = ${value} WHERE digest = ${
            SummaryCache.digest(key(column))
          }`
          assert.strictEqual(summaryOf(yield* cache.lookup(key(column))), undefined, column)
        }
      }).pipe(Effect.provide(onDatabase())))

    it.effect("entries unused for maxAgeMs are not returned and are evicted at the next store or prune", () => {
      let now = 0
      return Effect.gen(function*() {
        const { cache, inspect } = yield* services
        yield* cache.store(key("a"), "A")
        now = 500
        yield* cache.store(key("b"), "B")
        now = 900
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "A", "the lookup refreshes a's last use to 900")
        now = 1_550
        assert.strictEqual(
          summaryOf(yield* cache.lookup(key("b"))),
          undefined,
          "b was last used at 500, more than 1000 ms ago"
        )
        assert.strictEqual((yield* inspect.stats).entries, 2, "nothing is evicted by a lookup")
        now = 1_600
        yield* cache.store(key("c"), "C")
        assert.strictEqual((yield* inspect.stats).entries, 2, "the store evicted b")
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "A")
        now = 2_000
        assert.strictEqual(summaryOf(yield* cache.lookup(key("c"))), "C")
        now = 2_700
        assert.deepStrictEqual(
          yield* inspect.prune,
          { removed: 1 },
          "a, last used at 1600, goes; c, used at 2000, stays"
        )
        assert.strictEqual(summaryOf(yield* cache.lookup(key("c"))), "C")
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), undefined)
        assert.deepStrictEqual(yield* inspect.prune, { removed: 0 })
      }).pipe(Effect.provide(onDatabase({ maxAgeMs: 1_000, now: () => now })))
    })

    it.effect("past maxBytes the least recently used entries are evicted first, and a summary bigger than maxBytes is not stored", () => {
      let now = 0
      const tick = Effect.sync(() => now++)
      return Effect.gen(function*() {
        const { cache, inspect } = yield* services
        for (const name of ["a", "b", "c"]) {
          yield* tick
          yield* cache.store(key(name), name.repeat(100))
        }
        yield* tick
        assert.isTrue(Option.isSome(yield* cache.lookup(key("a"))), "a is now the most recently used")
        yield* tick
        yield* cache.store(key("d"), "d".repeat(100))
        assert.strictEqual(
          summaryOf(yield* cache.lookup(key("b"))),
          undefined,
          "b, the least recently used, was evicted"
        )
        for (const name of ["a", "c", "d"]) assert.isTrue(Option.isSome(yield* cache.lookup(key(name))), name)
        assert.deepStrictEqual([(yield* inspect.stats).entries, (yield* inspect.stats).bytes], [3, 300])
        yield* cache.store(key("huge"), "h".repeat(301))
        assert.strictEqual(summaryOf(yield* cache.lookup(key("huge"))), undefined)
        assert.deepStrictEqual([(yield* inspect.stats).entries, (yield* inspect.stats).stores], [3, 4])
      }).pipe(Effect.provide(onDatabase({ maxBytes: 300, now: () => now })))
    })

    layer(migrated.pipe(Layer.provideMerge(dialect.fresh)))("on one database, emptied at each run", (it) => {
      layerProp(it)(
        "a key differing in namespace, schema version, model, summariser or request never gets another key's summary",
        [
          fc.record({
            namespace: fc.string(),
            schemaVersion: fc.integer({ min: 0, max: 1_000 }),
            model: fc.string(),
            summarizer: fc.record({ kind: fc.string() }),
            request: fc.string()
          }),
          fc.constantFrom<keyof SummaryCache.Key>("namespace", "schemaVersion", "model", "summarizer", "request"),
          fc.string({ minLength: 1 }),
          fc.integer({ min: 1, max: 1_000 })
        ],
        ([original, field, suffix, delta]) =>
          Effect.gen(function*() {
            const other: SummaryCache.Key = field === "schemaVersion"
              ? { ...original, schemaVersion: original.schemaVersion + delta }
              : field === "summarizer"
              ? { ...original, summarizer: { kind: `${original.summarizer.kind}${suffix}` } }
              : { ...original, [field]: `${original[field]}${suffix}` }
            const { cache, inspect } = yield* services
            yield* cache.store(original, "original")
            assert.strictEqual(summaryOf(yield* cache.lookup(other)), undefined)
            yield* cache.store(other, "other")
            assert.strictEqual(summaryOf(yield* cache.lookup(original)), "original")
            assert.strictEqual(summaryOf(yield* cache.lookup(other)), "other")
            const stats = yield* inspect.stats
            assert.deepStrictEqual([stats.entries, stats.hits, stats.misses], [2, 2, 1])
          }).pipe(Effect.provide(emptied())),
        { fastCheck: { numRuns: 50 } }
      )
      layerProp(it)(
        "lookups and evictions agree with a model of an age- and size-bounded LRU cache",
        [
          fc.array(
            fc.record({
              op: fc.constantFrom("store", "lookup"),
              entry: fc.integer({ min: 0, max: 5 }),
              chars: fc.integer({ min: 1, max: 120 }),
              advance: fc.integer({ min: 1, max: 400 })
            }),
            { maxLength: 40 }
          )
        ],
        ([operations]) => {
          const maxAgeMs = 1_000
          const maxBytes = 300
          let now = 0
          return Effect.gen(function*() {
            const { cache, inspect } = yield* services
            const model = new Map<number, { summary: string; bytes: number; createdAt: number; usedAt: number }>()
            let hits = 0
            let misses = 0
            let stores = 0
            for (const { advance, chars, entry, op } of operations) {
              now += advance
              if (op === "lookup") {
                const held = model.get(entry)
                const expected = held !== undefined && held.usedAt >= now - maxAgeMs ? held.summary : undefined
                if (expected !== undefined) {
                  hits++
                  held!.usedAt = now
                } else misses++
                assert.strictEqual(summaryOf(yield* cache.lookup(key(`r${entry}`))), expected)
                continue
              }
              // Two bytes a character: the bound is in bytes, not characters.
              const summary = `${entry}`.padEnd(chars, "é")
              const bytes = Buffer.byteLength(summary)
              yield* cache.store(key(`r${entry}`), summary)
              if (bytes > maxBytes) continue
              // The summary stored first stays while it is live; an expired one is replaced.
              const held = model.get(entry)
              if (held === undefined || held.usedAt < now - maxAgeMs) {
                stores++
                model.set(entry, { summary, bytes, createdAt: now, usedAt: now })
              }
              for (const [name, held] of model) if (held.usedAt < now - maxAgeMs) model.delete(name)
              let newer = 0
              for (const [name, held] of [...model].sort(([, x], [, y]) => y.usedAt - x.usedAt)) {
                newer += held.bytes
                if (newer > maxBytes) model.delete(name)
              }
            }
            const stats = yield* inspect.stats
            assert.deepStrictEqual(plain(stats), {
              hits,
              misses,
              stores,
              entries: model.size,
              bytes: [...model.values()].reduce((sum, held) => sum + held.bytes, 0),
              degraded: undefined
            })
          }).pipe(Effect.provide(emptied({ maxAgeMs, maxBytes, now: () => now })))
        },
        { fastCheck: { numRuns: 60 } }
      )
    })

    it.scoped("workers on separate connections storing one key keep the summary stored first, and every lookup returns it", () =>
      Effect.gen(function*() {
        const { client } = yield* dialect.database
        yield* Effect.provide(Effect.orDie(SqlMigrations.run), client)
        const worker = () =>
          Effect.map(Layer.build(SummaryCacheSql.layer().pipe(Layer.provide(client))), (context) => ({
            cache: Context.get(context, SummaryCache.SummaryCache),
            inspect: Context.get(context, SummaryCacheSql.SqlCache)
          }))
        const workers = [yield* worker(), yield* worker(), yield* worker()]
        yield* workers[1]!.cache.store(key("shared"), "first")
        yield* Effect.forEach(workers, (each, i) => each.cache.store(key("shared"), `later ${i}`), {
          concurrency: "unbounded"
        })
        for (const each of workers) assert.strictEqual(summaryOf(yield* each.cache.lookup(key("shared"))), "first")
        const stats = yield* Effect.forEach(workers, (each) => each.inspect.stats)
        assert.deepStrictEqual(stats.map((each) => each.stores), [0, 1, 0])
        assert.strictEqual(stats[0]!.entries, 1)

        // Stored at once from every worker: one summary wins, and all read back that one.
        const raced = yield* Effect.forEach(workers, (each, i) => each.cache.store(key("raced"), `summary ${i}`), {
          concurrency: "unbounded"
        })
        assert.strictEqual(raced.length, 3)
        const found = yield* Effect.forEach(workers, (each) => Effect.map(each.cache.lookup(key("raced")), summaryOf))
        assert.strictEqual(new Set(found).size, 1)
        assert.include(["summary 0", "summary 1", "summary 2"], found[0])
        assert.strictEqual(
          (yield* Effect.forEach(workers, (each) => each.inspect.stats)).reduce((sum, each) => sum + each.stores, 0),
          2
        )
      }).pipe(Effect.orDie))

    it.scoped("entries persist across closing and reopening the database", () =>
      Effect.gen(function*() {
        const { client } = yield* dialect.database
        const opened = Layer.mergeAll(SummaryCacheSql.layer(), migrated).pipe(Layer.provide(client))
        yield* Effect.flatMap(SummaryCache.SummaryCache, (cache) => cache.store(key("a"), "kept")).pipe(
          Effect.provide(opened)
        )
        yield* Effect.gen(function*() {
          const { cache, inspect } = yield* services
          assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "kept")
          assert.strictEqual((yield* inspect.stats).entries, 1)
        }).pipe(Effect.provide(opened))
      }))
  })
}

describe("SummaryCacheSql on a SQLite file", () => {
  it.effect("entries persist across reopening the file", () => {
    const filename = freshFile()
    return Effect.gen(function*() {
      yield* Effect.flatMap(SummaryCache.SummaryCache, (cache) => cache.store(key("a"), "kept")).pipe(
        Effect.provide(SummaryCacheSql.layerSqlite({ filename }))
      )
      assert.isFalse(
        existsSync(`${filename}-wal`),
        "the connection closes with the layer (its log is checkpointed away)"
      )
      yield* Effect.gen(function*() {
        const { cache, inspect } = yield* services
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "kept")
        assert.strictEqual((yield* inspect.stats).entries, 1)
      }).pipe(Effect.provide(SummaryCacheSql.layerSqlite({ filename })))
    })
  })

  it.effect("a corrupt file: the layer builds, lookups miss, stores are skipped, a warning names the file and cause, the bytes stay", () => {
    const filename = freshFile()
    const garbage = Buffer.from(Array.from({ length: 8_192 }, (_, i) => (i * 7_919 + 13) % 256))
    writeFileSync(filename, garbage)
    const logs = captureWarnings()
    return Effect.gen(function*() {
      yield* Effect.gen(function*() {
        const { cache, inspect } = yield* services
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), undefined)
        yield* cache.store(key("a"), "summary")
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), undefined)
        const stats = yield* inspect.stats
        assert.deepStrictEqual([stats.hits, stats.misses, stats.stores, stats.entries], [0, 2, 0, 0])
        assert.include(Option.getOrThrow(stats.degraded), "file is not a database")
        assert.deepStrictEqual(yield* inspect.prune, { removed: 0 })
      }).pipe(Effect.provide(SummaryCacheSql.layerSqlite({ filename })))
      assert.strictEqual(logs.warnings.length, 1)
      assert.include(logs.warnings[0]!, filename)
      assert.include(logs.warnings[0]!, `${TestCompat.sqliteErrorCode("SQLITE_NOTADB")}: file is not a database`)
      assert.isTrue(readFileSync(filename).equals(garbage), "the corrupt file was modified")
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a file locked by another connection when opened: the cache misses with a warning, untouched, and works once released", () => {
    const filename = freshFile()
    const holder = TestCompat.sqliteConnection(filename)
    holder.exec("CREATE TABLE other (x)").exec("INSERT INTO other VALUES (1)").exec("BEGIN EXCLUSIVE")
    const before = readFileSync(filename)
    const logs = captureWarnings()
    return Effect.gen(function*() {
      const started = Date.now()
      yield* Effect.gen(function*() {
        const { cache, inspect } = yield* services
        yield* cache.store(key("a"), "summary")
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), undefined)
        assert.include(Option.getOrThrow((yield* inspect.stats).degraded), "database is locked")
      }).pipe(Effect.provide(SummaryCacheSql.layerSqlite({ filename, busyTimeoutMs: 50 })))
      assert.isBelow(Date.now() - started, 2_000, "the busy timeout, not better-sqlite3's 5 s, bounds the wait")
      assert.strictEqual(logs.warnings.length, 1)
      assert.include(logs.warnings[0]!, filename)
      assert.include(logs.warnings[0]!, `${TestCompat.sqliteErrorCode("SQLITE_BUSY")}: database is locked`)
      assert.isTrue(readFileSync(filename).equals(before), "the locked file was modified")
      holder.exec("ROLLBACK").close()
      yield* Effect.gen(function*() {
        const { cache } = yield* services
        yield* cache.store(key("a"), "summary")
        assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), "summary")
      }).pipe(Effect.provide(SummaryCacheSql.layerSqlite({ filename })))
    }).pipe(Effect.provide(logs.layer), Effect.ensuring(Effect.sync(() => holder.close())))
  })

  it.effect("a lock taken while the cache is in use: stores are skipped with a warning, reads go on, and writes resume after", () => {
    const filename = freshFile()
    const logs = captureWarnings()
    return Effect.gen(function*() {
      const { cache, inspect } = yield* services
      yield* cache.store(key("a"), "A")
      const holder = TestCompat.sqliteConnection(filename)
      holder.exec("BEGIN EXCLUSIVE")
      yield* cache.store(key("b"), "B")
      assert.strictEqual((yield* inspect.stats).stores, 1)
      assert.include(
        Option.getOrThrow((yield* inspect.stats).degraded),
        `store failed: ${TestCompat.sqliteErrorCode("SQLITE_BUSY")}: database is locked`
      )
      assert.strictEqual(
        summaryOf(yield* cache.lookup(key("a"))),
        "A",
        "a reader is not blocked by a writer in WAL mode"
      )
      assert.strictEqual(summaryOf(yield* cache.lookup(key("b"))), undefined)
      assert.isTrue(
        logs.warnings.some((w) =>
          w.includes(filename) && w.includes("store failed") && w.includes("database is locked")
        )
      )
      assert.isTrue(logs.warnings.some((w) => w.includes("refreshing the last use")))
      holder.exec("COMMIT").close()
      yield* cache.store(key("b"), "B")
      assert.strictEqual(summaryOf(yield* cache.lookup(key("b"))), "B")
      const stats = yield* inspect.stats
      assert.deepStrictEqual([stats.stores, stats.entries, Option.getOrUndefined(stats.degraded)], [2, 2, undefined])
    }).pipe(Effect.provide(SummaryCacheSql.layerSqlite({ filename, busyTimeoutMs: 50 })), Effect.provide(logs.layer))
  })

  it.effect("a path whose directory cannot be created (a parent is a regular file): the cache misses with a warning", () => {
    const blocker = join(directory, `blocker-${files++}`)
    writeFileSync(blocker, "not a directory")
    const filename = join(blocker, "nested", "cache.db")
    const logs = captureWarnings()
    return Effect.gen(function*() {
      const { cache, inspect } = yield* services
      yield* cache.store(key("a"), "summary")
      assert.strictEqual(summaryOf(yield* cache.lookup(key("a"))), undefined)
      assert.include(Option.getOrThrow((yield* inspect.stats).degraded), "ENOTDIR")
      assert.strictEqual(logs.warnings.length, 1)
      assert.include(logs.warnings[0]!, filename)
      assert.include(logs.warnings[0]!, "ENOTDIR")
      assert.strictEqual(readFileSync(blocker, "utf8"), "not a directory")
    }).pipe(Effect.provide(SummaryCacheSql.layerSqlite({ filename })), Effect.provide(logs.layer))
  })
})

describe("SummaryCacheSql under the engine", () => {
  const passingSummary = SummaryPrompt.generalSections
    .map((heading) =>
      `${heading}\nWhat the span says under ${heading.slice(3).toLowerCase()}, in a sentence long enough to count.`
    )
    .join("\n\n")
  const session = Generated.fromTurns(
    Array.from({ length: 40 }, (_, i) => ({
      user: `request ${i}: ` + "tidy the importer and keep the ids ".repeat(12),
      steps: [[{
        name: "bash",
        args: JSON.stringify({ command: `cat src/import${i}.ts` }),
        result: `<returncode>0</returncode>\n<output>\n${"import line\n".repeat(120)}</output>`
      }]],
      reply: `Done with step ${i}.`,
      accept: false
    }))
  )
  const engineOn = (cache: Layer.Layer<SummaryCache.SummaryCache>, summarizerModel?: string) =>
    Compactor.layer({ policies: builtInPolicies }).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          SummarizerScripted.layer([passingSummary], { whenExhausted: "repeatLast" }),
          cache,
          CompactionStoreMemory.layer,
          SettingsFixed.layer({
            replyReserveTokens: 200,
            ...(summarizerModel === undefined ? {} : { summarizerModel })
          }),
          TokenizerApprox.layer,
          AttentionUnattended.layer
        )
      )
    )
  const replay = Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const reports: Array<Compactor.Compacted> = []
    for (const start of [...Boundary.turnStarts(session), session.length]) {
      const result = yield* compactor.checkpoint({
        sessionId: "s1",
        transcript: session.slice(0, start),
        model: "m",
        contextWindow: 8_000
      })
      if (Option.isSome(result.compacted)) reports.push(result.compacted.value)
    }
    return { reports, calls: yield* (yield* SummarizerScripted.ScriptedSummarizer).calls }
  })

  for (const dialect of SqlDatabases.dialects) {
    SqlDatabases.describeOn(dialect, "a shared cache", () => {
      it.scoped("a replay with a fresh engine on the same cache database answers every compaction from the cache; another model answers none", () =>
        Effect.gen(function*() {
          const { client } = yield* dialect.database
          // Each engine opens the database anew, as another process would.
          const cache = Layer.merge(SummaryCacheSql.layer(), migrated).pipe(Layer.provide(client))
          const first = yield* Effect.scoped(Effect.provide(replay, engineOn(cache)))
          assert.isAbove(first.reports.length, 1)
          assert.isTrue(first.reports.every((report) => !report.cacheHit))
          assert.strictEqual(first.calls, first.reports.length)
          const second = yield* Effect.scoped(Effect.provide(replay, engineOn(cache)))
          assert.strictEqual(second.reports.length, first.reports.length)
          assert.isTrue(second.reports.every((report) => report.cacheHit))
          assert.strictEqual(second.calls, 0)
          const other = yield* Effect.scoped(Effect.provide(replay, engineOn(cache, "another-model")))
          assert.isTrue(other.reports.every((report) => !report.cacheHit))
          assert.strictEqual(other.calls, other.reports.length)
        }))
    })
  }
})
