import { assert, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as SqlMigrations from "../../../../src/face/layers/sql/SqlMigrations.js"
import * as TranscriptArchiveSql from "../../../../src/face/layers/TranscriptArchiveSql.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import * as Property from "../../../support/Property.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

const results = (texts: ReadonlyArray<string>, prefix = "m") =>
  texts.map((content, i) => new Transcript.ToolResult({ id: `${prefix}${i}`, toolCallId: `c${i}`, content }))

/** Two archives (two workers) on one new, migrated database. */
const twoWorkers = (dialect: SqlDatabases.Dialect, options: TranscriptArchiveSql.Options = {}) =>
  Effect.gen(function*() {
    const { client } = yield* dialect.database
    const open = Effect.flatMap(
      Layer.build(client),
      (context) =>
        Effect.andThen(Effect.orDie(SqlMigrations.run), TranscriptArchiveSql.makeWith(options)).pipe(
          Effect.provide(context)
        )
    ).pipe(Effect.map((archive) => ({ archive })))
    return [yield* open, yield* open] as const
  })

for (const dialect of SqlDatabases.dialects) {
  SqlDatabases.describeOn(dialect, "TranscriptArchiveSql", () => {
    Property.effectProp(
      "a handle written by one worker resolves through another, for its own session only",
      [fc.uniqueArray(fc.string({ minLength: 1, maxLength: 400 }), { minLength: 1, maxLength: 6 })],
      ([texts]) =>
        Effect.scoped(Effect.gen(function*() {
          const [a, b] = yield* twoWorkers(dialect)
          const location = yield* a.archive.archive.write({
            sessionId: "session-a",
            compaction: 1,
            messages: results(texts)
          })
          assert.strictEqual(
            location,
            a.archive.archive.locate({ sessionId: "session-a", compaction: 1, messages: results(texts) })
          )
          assert.notInclude(location, "/tmp")
          for (const [i, text] of texts.entries()) {
            const found = yield* b.archive.archive.lookup!("session-a", Recall.handleOf("session-a", text))
            assert.isTrue(Option.isSome(found), `message ${i}`)
            if (Option.isSome(found)) assert.strictEqual((found.value as Transcript.ToolResult).content, text)
            assert.isTrue(
              Option.isNone(yield* b.archive.archive.lookup!("session-b", Recall.handleOf("session-a", text))),
              "another session reads nothing of it"
            )
            assert.isTrue(
              Option.isNone(yield* b.archive.archive.lookup!("session-b", Recall.handleOf("session-b", text)))
            )
          }
        })),
      { fastCheck: { numRuns: dialect.name === "PostgreSQL" ? 4 : 8 } }
    )

    it.effect("two workers writing the same entry at once store it once, whole", () =>
      Effect.scoped(Effect.gen(function*() {
        const [a, b] = yield* twoWorkers(dialect)
        const messages = results(Array.from({ length: 450 }, (_, i) => `result ${i} ` + "x".repeat(50)))
        const entry = { sessionId: "s", compaction: 2, messages }
        yield* Effect.all([a.archive.archive.write(entry), b.archive.archive.write(entry)], { concurrency: 2 })
        const stats = yield* a.archive.sql.stats
        assert.deepStrictEqual({ entries: stats.entries, messages: stats.messages, sessions: stats.sessions }, {
          entries: 1,
          messages: 450,
          sessions: 1
        })
        const cut = yield* a.archive.archive.write({
          sessionId: "s",
          compaction: 2,
          messages: [messages[0]!],
          cut: true
        })
        assert.include(cut, "cut-")
        assert.strictEqual((yield* b.archive.sql.stats).entries, 2)
      })))

    it.effect("prune removes entries past the age, then the oldest past the size, and their handles stop resolving", () =>
      Effect.scoped(Effect.gen(function*() {
        let time = 1_000_000
        const day = 86_400_000
        const [a] = yield* twoWorkers(dialect, {
          maxAgeMs: 10 * day,
          maxBytes: 3_000,
          pruneEveryMs: Infinity,
          now: () => time
        })
        const text = (n: number) => `entry ${n} ` + "y".repeat(900)
        for (let n = 0; n < 5; n++) {
          yield* a.archive.archive.write({ sessionId: "s", compaction: n + 1, messages: results([text(n)], `e${n}-`) })
          time += day
        }
        time += 6 * day // entry 0 is now 11 days old
        const removed = yield* a.archive.sql.prune
        // Entry 0 by age; of the four left (about 960 bytes each), the oldest one past 3,000 bytes.
        assert.deepStrictEqual(removed, { entries: 2, messages: 2 })
        const resolves = (n: number) =>
          Effect.map(a.archive.archive.lookup!("s", Recall.handleOf("s", text(n))), Option.isSome)
        assert.deepStrictEqual(yield* Effect.all([0, 1, 2, 3, 4].map(resolves)), [false, false, true, true, true])
        assert.isAtMost((yield* a.archive.sql.stats).bytes, 3_000)
      })))

    it.effect("a write prunes when the last prune of the process is older than pruneEveryMs", () =>
      Effect.scoped(Effect.gen(function*() {
        let time = 0
        const [a] = yield* twoWorkers(dialect, { maxAgeMs: 1_000, pruneEveryMs: 5_000, now: () => time })
        yield* a.archive.archive.write({ sessionId: "s", compaction: 1, messages: results(["old " + "z".repeat(300)]) })
        time = 2_000 // under pruneEveryMs since the first write's prune: no prune
        yield* a.archive.archive.write({
          sessionId: "s",
          compaction: 2,
          messages: results(["mid " + "z".repeat(300)], "n")
        })
        assert.strictEqual((yield* a.archive.sql.stats).entries, 2)
        time = 6_000
        yield* a.archive.archive.write({
          sessionId: "s",
          compaction: 3,
          messages: results(["new " + "z".repeat(300)], "o")
        })
        assert.strictEqual((yield* a.archive.sql.stats).entries, 1)
      })))
  })
}
