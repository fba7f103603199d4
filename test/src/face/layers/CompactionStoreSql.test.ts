import * as Compat from "#compat"
import { SqlClient } from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { afterAll, assert, describe, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as esbuild from "esbuild"
import * as fc from "fast-check"
import { type ChildProcessByStdio, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable, Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as AttentionUnattended from "../../../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreSql from "../../../../src/face/layers/CompactionStoreSql.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as SqlMigrations from "../../../../src/face/layers/sql/SqlMigrations.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../../../../src/face/layers/SummaryCacheMemory.js"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as CompactionStore from "../../../../src/face/services/CompactionStore.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { effectProp, layerProp } from "../../../support/Property.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"
import * as Generated from "../../../transcripts.js"
import * as SaveLoop from "./fixtures/saveLoop.js"

const directory = mkdtempSync(join(tmpdir(), "compaction-store-sql-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))
let files = 0
const freshFile = () => join(directory, `state-${files++}.db`)

const state = (
  sessionId: string,
  overrides: Partial<CompactionStore.CompactionState> = {}
): CompactionStore.CompactionState =>
  new CompactionStore.CompactionState({
    sessionId,
    compactions: 2,
    block: new Transcript.CompactedBlock({
      id: "compacted-2",
      content: "## Summary\nWork so far.",
      firstReplacedId: "m1",
      lastReplacedId: "m9"
    }),
    boundaryId: "m10",
    updatedAt: 1_700_000_000_000,
    ...overrides
  })

/** A state as stored: JSON has one zero, so -0 comes back as 0. */
const encoded = (value: CompactionStore.CompactionState) =>
  JSON.stringify(Schema.encodeSync(CompactionStore.CompactionState)(value))

const migrated = Layer.effectDiscard(Effect.orDie(SqlMigrations.run))

const storeError = <A>(outcome: Compat.Result<A, CompactionStore.StoreError>): CompactionStore.StoreError =>
  Compat.matchResult(outcome, {
    onSuccess: () => assert.fail("expected a StoreError"),
    onFailure: (error) => {
      assert.instanceOf(error, CompactionStore.StoreError)
      return error
    }
  })

for (const dialect of SqlDatabases.dialects) {
  /** The store on an empty database of the dialect (migrated unless told not to), with the client for a test to write rows. */
  const onDatabase = (migrate = true) =>
    (migrate ? Layer.merge(CompactionStoreSql.layer, migrated) : CompactionStoreSql.layer).pipe(
      Layer.provideMerge(dialect.fresh)
    )

  SqlDatabases.describeOn(dialect, "CompactionStoreSql", () => {
    it.effect("a session never saved loads as none; a saved state loads back equal into fresh instances; a second save replaces it", () =>
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        const sql = yield* SqlClient
        assert.isTrue(Option.isNone(yield* store.load("s1")))
        const archived = state("s1", { archivePath: "/tmp/archive/s1.jsonl", pinnedIds: ["m4", "m5"] })
        yield* store.save(archived)
        yield* store.save(state("s2"))
        const loaded = Option.getOrThrow(yield* store.load("s1"))
        assert.instanceOf(loaded, CompactionStore.CompactionState)
        assert.instanceOf(loaded.block, Transcript.CompactedBlock)
        assert.notStrictEqual(loaded, archived)
        assert.deepStrictEqual(loaded, archived)
        const later = state("s1", { compactions: 3, boundaryId: "m20", updatedAt: 1_700_000_000_500 })
        yield* store.save(later)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.load("s1")), later)
        assert.notProperty(Option.getOrThrow(yield* store.load("s1")), "archivePath")
        const rows = yield* sql<{ session_id: string; compactions: number; updated_at: number }>`
          SELECT session_id, compactions, updated_at FROM compaction_state ORDER BY session_id`
        // PostgreSQL gives BIGINT columns back as text.
        assert.deepStrictEqual(rows.map((row) => ({ ...row, updated_at: Number(row.updated_at) })), [
          { session_id: "s1", compactions: 3, updated_at: 1_700_000_000_500 },
          { session_id: "s2", compactions: 2, updated_at: 1_700_000_000_000 }
        ])
      }).pipe(Effect.provide(onDatabase())))

    layer(Layer.merge(CompactionStoreSql.layer, migrated).pipe(Layer.provide(dialect.fresh)))(
      "on one database",
      (it) => {
        layerProp(it)(
          "any state loads back as saved, or its save fails with StoreError and the session keeps what it had; a session id the database cannot keep apart is refused",
          [
            // Session ids of printable ASCII and of any code units: a lone surrogate (node:sqlite binds each as
            // U+FFFD, so two such ids would share one row) or a NUL character (PostgreSQL's text holds none) is
            // refused at load and at save with a StoreError saying so, on every database.
            fc.tuple(
              TestCompat.arbitrary(CompactionStore.CompactionState),
              fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("\ud800", "a\u0000b", "\udc00x"))
            ).map(
              ([drawn, sessionId]) => new CompactionStore.CompactionState({ ...drawn, sessionId })
            )
          ],
          ([generated]) =>
            Effect.gen(function*() {
              const store = yield* CompactionStore.CompactionStore
              if (
                /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(
                  generated.sessionId
                )
              ) {
                const loaded = yield* Compat.result(store.load(generated.sessionId))
                assert.include(storeError(loaded).reason, "the session id cannot be kept")
                // A state that does not survive its own JSON (a non-finite number) is refused before the store is asked.
                const saved = yield* Compat.result(store.save(generated))
                assert.include(
                  storeError(saved).reason,
                  Number.isFinite(generated.updatedAt) ? "the session id cannot be kept" : "does not survive encoding"
                )
                return
              }
              const before = yield* store.load(generated.sessionId)
              const saved = yield* Compat.result(store.save(generated))
              const after = yield* store.load(generated.sessionId)
              if (TestCompat.isSuccess(saved)) {
                assert.strictEqual(encoded(Option.getOrThrow(after)), encoded(generated))
              } else {
                assert.strictEqual(storeError(saved).sessionId, generated.sessionId)
                assert.isTrue(!Number.isFinite(generated.updatedAt), "only a non-finite number fails to survive JSON")
                assert.strictEqual(
                  Option.getOrUndefined(Option.map(after, encoded)),
                  Option.getOrUndefined(Option.map(before, encoded))
                )
              }
            }),
          { fastCheck: { numRuns: dialect.name === "PostgreSQL" ? 60 : 100 } }
        )
      }
    )

    it.effect("a row that does not decode is a StoreError for its session, not a crash", () =>
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        const sql = yield* SqlClient
        const rows: ReadonlyArray<readonly [string, unknown, string]> = [
          ["not-json", "{ truncated", "does not decode"],
          ["wrong-shape", JSON.stringify({ sessionId: "wrong-shape", compactions: "two" }), "does not decode"],
          // A BLOB in a TEXT column: SQLite keeps it, PostgreSQL refuses it at insert.
          ...(dialect.name === "SQLite"
            ? [["not-text", Buffer.from("{}"), "the state column holds no text"] as const]
            : []),
          ["someone-else", encoded(state("another-session")), "belongs to session \"another-session\""]
        ]
        for (const [sessionId, text] of rows) {
          yield* sql`INSERT INTO compaction_state ${
            sql.insert({ session_id: sessionId, compactions: 1, state: text as string, updated_at: 0 })
          }`
        }
        for (const [sessionId, , reason] of rows) {
          const error = storeError(yield* Compat.result(store.load(sessionId)))
          assert.strictEqual(error.sessionId, sessionId)
          assert.include(error.reason, reason)
        }
      }).pipe(Effect.provide(onDatabase())))

    it.effect("a SQL error is a StoreError with the session id and the cause", () =>
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        const loaded = storeError(yield* Compat.result(store.load("s1")))
        const saved = storeError(yield* Compat.result(store.save(state("s2"))))
        assert.deepStrictEqual([loaded.sessionId, saved.sessionId], ["s1", "s2"])
        const missing = dialect.name === "SQLite"
          ? "no such table: compaction_state"
          : "relation \"compaction_state\" does not exist"
        assert.include(loaded.reason, missing)
        assert.include(saved.reason, missing)
      }).pipe(Effect.provide(onDatabase(false))))

    it.scoped("states persist across closing and reopening the database", () =>
      Effect.gen(function*() {
        const { client } = yield* dialect.database
        const saved = state("s1", { archivePath: "/tmp/a.jsonl" })
        const opened = Layer.merge(CompactionStoreSql.layer, migrated).pipe(Layer.provide(client))
        yield* Effect.flatMap(CompactionStore.CompactionStore, (store) => store.save(saved)).pipe(
          Effect.provide(opened)
        )
        const loaded = yield* Effect.flatMap(CompactionStore.CompactionStore, (store) => store.load("s1")).pipe(
          Effect.provide(opened)
        )
        assert.deepStrictEqual(Option.getOrThrow(loaded), saved)
      }))

    it.effect("a versioned save replaces only the state it started from; a conflict gives the state that stands and changes nothing", () =>
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        const first = state("s1", { compactions: 1, boundaryId: "m5" })
        assert.strictEqual((yield* store.saveIfCurrent(first, 0))._tag, "Saved", "none stored: saved")
        const rival = state("s1", { compactions: 1, boundaryId: "m6" })
        const lost = yield* store.saveIfCurrent(rival, 0)
        assert.strictEqual(lost._tag, "Conflict")
        if (lost._tag === "Conflict") assert.strictEqual(encoded(lost.current), encoded(first))
        assert.strictEqual(encoded(Option.getOrThrow(yield* store.load("s1"))), encoded(first))
        const second = state("s1", { compactions: 2, boundaryId: "m9" })
        assert.strictEqual((yield* store.saveIfCurrent(second, 1))._tag, "Saved")
        assert.strictEqual(
          (yield* store.saveIfCurrent(state("s1", { compactions: 2 }), 1))._tag,
          "Conflict",
          "1 is no longer current"
        )
        assert.strictEqual(encoded(Option.getOrThrow(yield* store.load("s1"))), encoded(second))
        assert.strictEqual(
          (yield* store.saveIfCurrent(state("other", { compactions: 4 }), 3))._tag,
          "Saved",
          "a session with no state is saved"
        )
        const refused = storeError(
          yield* Compat.result(store.saveIfCurrent(state("s1", { compactions: 3, updatedAt: Number.NaN }), 2))
        )
        assert.include(refused.reason, "does not survive encoding")
      }).pipe(Effect.provide(onDatabase())))

    effectProp(
      "savers on separate connections racing from one state: one is saved, each other gets the winner's state; the count equals the saves that won",
      [fc.integer({ min: 2, max: 4 }), fc.integer({ min: 1, max: 6 })],
      ([savers, rounds]) =>
        Effect.gen(function*() {
          const { client } = yield* dialect.database
          yield* Effect.provide(Effect.orDie(SqlMigrations.run), client)
          // Each saver its own client: on PostgreSQL, its own connections, like a separate process.
          const stores = yield* Effect.forEach(Array.from({ length: savers }), () =>
            Effect.map(
              Layer.build(CompactionStoreSql.layer.pipe(Layer.provide(client))),
              Context.get(CompactionStore.CompactionStore)
            ))
          const outcomes = yield* Effect.forEach(stores, (store, saver) =>
            store.saveIfCurrent(state("race", { compactions: 1, boundaryId: `saver-${saver}` }), 0), {
            concurrency: "unbounded"
          })
          assert.strictEqual(
            outcomes.filter((outcome) =>
              outcome._tag === "Saved"
            ).length,
            1
          )
          const winner = encoded(Option.getOrThrow(yield* stores[0]!.load("race")))
          for (const outcome of outcomes) {
            if (outcome._tag === "Conflict") assert.strictEqual(encoded(outcome.current), winner)
          }

          let won = 1
          yield* Effect.forEach(stores, (store, saver) =>
            Effect.forEach(Array.from({ length: rounds }), (_, round) =>
              Effect.gen(function*() {
                const current = Option.getOrThrow(yield* store.load("race"))
                const next = state("race", {
                  compactions: current.compactions + 1,
                  boundaryId: `saver-${saver}-round-${round}`
                })
                const outcome = yield* store.saveIfCurrent(next, current.compactions)
                if (outcome._tag === "Saved") {
                  won++
                } else {assert.isAbove(
                    outcome.current.compactions,
                    current.compactions,
                    "a conflict means another saved first"
                  )}
              }), { discard: true }), { concurrency: "unbounded", discard: true })
          const last = Option.getOrThrow(yield* stores[0]!.load("race"))
          assert.strictEqual(last.compactions, won)
          const rows = yield* Effect.provide(
            Effect.flatMap(SqlClient, (sql) =>
              sql<
                { readonly compactions: number }
              >`SELECT compactions FROM compaction_state WHERE session_id = ${"race"}`),
            client
          )
          assert.deepStrictEqual(
            rows.map((row) =>
              Number(row.compactions)
            ),
            [won],
            "one row, its column in step with its state"
          )
        }).pipe(Effect.orDie, Effect.scoped),
      { fastCheck: { numRuns: dialect.name === "PostgreSQL" ? 8 : 20 } }
    )
  })
}

describe("CompactionStoreSql on a SQLite file", () => {
  it.effect("states persist across reopening the file", () => {
    const filename = freshFile()
    const saved = state("s1", { archivePath: "/tmp/a.jsonl" })
    return Effect.gen(function*() {
      yield* Effect.flatMap(CompactionStore.CompactionStore, (store) => store.save(saved)).pipe(
        Effect.provide(CompactionStoreSql.layerSqlite({ filename }))
      )
      const loaded = yield* Effect.flatMap(CompactionStore.CompactionStore, (store) => store.load("s1")).pipe(
        Effect.provide(CompactionStoreSql.layerSqlite({ filename }))
      )
      assert.deepStrictEqual(Option.getOrThrow(loaded), saved)
    })
  })

  it.effect("a file that cannot be opened: the layer builds with a warning, each call fails with StoreError, and a repaired path heals", () => {
    const blocker = join(directory, `blocker-${files++}`)
    writeFileSync(blocker, "not a directory")
    const filename = join(blocker, "nested", "state.db")
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (TestCompat.isWarning(logLevel)) warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
    return Effect.gen(function*() {
      const store = yield* CompactionStore.CompactionStore
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!, filename)
      assert.include(warnings[0]!, "ENOTDIR")
      const loaded = storeError(yield* Compat.result(store.load("s1")))
      const saved = storeError(yield* Compat.result(store.save(state("s1"))))
      for (const error of [loaded, saved]) {
        assert.strictEqual(error.sessionId, "s1")
        assert.include(error.reason, `cannot open ${filename}: ENOTDIR`)
      }
      rmSync(blocker)
      yield* store.save(state("s1"))
      assert.deepStrictEqual(Option.getOrThrow(yield* store.load("s1")), state("s1"))
    }).pipe(Effect.provide(CompactionStoreSql.layerSqlite({ filename })), Effect.provide(TestCompat.addLogger(logger)))
  })

  it.live(
    "a saver killed at random moments leaves the old state or the new one, never a mix, and loses no finished save",
    () => {
      const filename = freshFile()
      const root = fileURLToPath(new URL("../../../../", import.meta.url))
      /**
       * The saver's script, bundled once from fixtures/saveLoop.ts into test-artifacts/ of the
       * folder whose node_modules hold the Effect the test runs on, with the compat modules of that
       * Effect: five processes through tsx's loader took seconds of the run to start, transpiling
       * each module again.
       */
      const bundled = Effect.acquireRelease(
        Effect.promise(async () => {
          const outdir = join(
            TestCompat.scriptPackages.directory,
            "test-artifacts",
            `save-loop-${process.pid}-${files++}`
          )
          mkdirSync(outdir, { recursive: true })
          await esbuild.build({
            plugins: [{
              name: "compat",
              setup: (build) => {
                build.onResolve({ filter: /^#compat/ }, ({ path }) => {
                  const compat = TestCompat.scriptPackages.imports[path]
                  return compat === undefined ? undefined : { path: compat }
                })
              }
            }],
            entryPoints: [fileURLToPath(new URL("./fixtures/saveLoop.ts", import.meta.url))],
            outfile: join(outdir, "saveLoop.mjs"),
            bundle: true,
            format: "esm",
            platform: "node",
            packages: "external",
            logLevel: "warning"
          })
          return outdir
        }),
        (outdir) => Effect.sync(() => rmSync(outdir, { recursive: true, force: true }))
      )
      interface Saver {
        readonly child: ChildProcessByStdio<Writable, Readable, Readable>
        readonly output: { stdout: string; stderr: string }
      }
      /** A saver process, started now (loading its modules) and killed at the latest when the scope closes. */
      const saver = (outdir: string) =>
        Effect.acquireRelease(
          Effect.sync((): Saver => {
            const child = spawn(process.execPath, [join(outdir, "saveLoop.mjs")], {
              cwd: root,
              env: { ...process.env, SAVE_LOOP_DATABASE: filename },
              stdio: ["pipe", "pipe", "pipe"]
            })
            const output = { stdout: "", stderr: "" }
            child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk))
            child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk))
            return { child, output }
          }),
          ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
        )
      /** Lets a saver go, kills it `delay` ms after its first save, and gives the last save it reported. */
      const runAndKill = ({ child, output }: Saver, delay: number) =>
        Compat.callback<number, Error>((resume) => {
          let timer: ReturnType<typeof setTimeout> | undefined
          child.stdout.on("data", () => (timer ??= setTimeout(() => child.kill("SIGKILL"), delay)))
          child.once("exit", (_, signal) => {
            clearTimeout(timer)
            const saves = [...output.stdout.matchAll(/saved (\d+)\n/g)].map((match) => Number(match[1]))
            resume(
              signal === "SIGKILL"
                ? Effect.succeed(saves.at(-1) ?? 0)
                : Effect.fail(new Error(`the saver exited: ${output.stderr}`))
            )
          })
          child.stdin.write("go\n")
        })
      return Effect.gen(function*() {
        const outdir = yield* bundled
        const savers = yield* Effect.all(Array.from({ length: 5 }, () => saver(outdir)))
        let finished = 0
        for (const [round, running] of savers.entries()) {
          const delay = Math.floor(Math.random() * 150)
          finished = Math.max(finished, yield* runAndKill(running, delay))
          const loaded = yield* Effect.flatMap(
            CompactionStore.CompactionStore,
            (store) => store.load(SaveLoop.sessionId)
          ).pipe(
            Effect.provide(CompactionStoreSql.layerSqlite({ filename }))
          )
          const { compactions } = Option.getOrThrow(loaded)
          const context = `round ${round}, killed ${delay} ms after its first save, last finished save ${finished}`
          assert.strictEqual(encoded(Option.getOrThrow(loaded)), encoded(SaveLoop.stateFor(compactions)), context)
          assert.isAtLeast(compactions, finished, context)
          assert.isAtMost(compactions, finished + 1, context)
          finished = compactions
        }
        assert.isAtLeast(finished, 5)
      }).pipe(Effect.scoped)
    },
    30_000
  )
})

const longSession = Generated.longSession

/** The engine on the test layers, with its state in the store of `store` and its own summariser. */
const engine = (
  store: Layer.Layer<CompactionStore.CompactionStore>,
  summarizer: Layer.Layer<Summarizer.Summarizer> = SummarizerOffline.layer
) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        summarizer,
        SummaryCacheMemory.layer,
        store,
        SettingsFixed.layer({ replyReserveTokens: 200 }),
        TokenizerApprox.layer,
        AttentionUnattended.layer
      )
    )
  )

const input = (transcript: Transcript.Transcript) => ({ sessionId: "s1", transcript, model: "m", contextWindow: 8_000 })

for (const dialect of SqlDatabases.dialects) {
  SqlDatabases.describeOn(dialect, "CompactionStoreSql under the engine", () => {
    it.scoped("a reload rebuilds the same outbound view from the database, without compacting again", () =>
      Effect.gen(function*() {
        const { client } = yield* dialect.database
        const store = Layer.merge(CompactionStoreSql.layer, migrated).pipe(Layer.provide(client))
        const first = yield* Effect.gen(function*() {
          const compactor = yield* Compactor.Compactor
          let compactions = 0
          let last: Compactor.Checkpoint | undefined
          for (const start of [...Boundary.turnStarts(longSession).slice(1), longSession.length]) {
            last = yield* compactor.checkpoint(input(longSession.slice(0, start)))
            if (Option.isSome(last.compacted)) compactions++
          }
          return { compactions, view: last!.view }
        }).pipe(Effect.provide(engine(store)))
        assert.isAtLeast(first.compactions, 2, "the session compacts more than once")

        const reloaded = yield* Effect.flatMap(
          Compactor.Compactor,
          (compactor) => compactor.checkpoint(input(longSession))
        ).pipe(
          Effect.provide(engine(store))
        )
        assert.isTrue(Option.isNone(reloaded.compacted), "the reload compacted again")
        assert.deepStrictEqual(reloaded.view, first.view)
        assert.strictEqual(JSON.stringify(reloaded.view), JSON.stringify(first.view))
        const block = reloaded.view.find((message) => message._tag === "Compacted")
        assert.strictEqual(block?.id, `compacted-${first.compactions}`)
      }))

    it.scoped("two workers on separate connections compacting one session at once save one state; the loser serves the winner's view", () =>
      Effect.gen(function*() {
        const { client } = yield* dialect.database
        yield* Effect.provide(Effect.orDie(SqlMigrations.run), client)
        // The summariser answers once both workers asked: both have loaded the state before either saves.
        const asked = yield* Ref.make(0)
        const both = yield* Deferred.make<void>()
        const offline = yield* Effect.provide(Summarizer.Summarizer, SummarizerOffline.layer)
        const gated = Layer.succeed(Summarizer.Summarizer, {
          summarize: (request) =>
            Effect.gen(function*() {
              if ((yield* Ref.updateAndGet(asked, (n) => n + 1)) === 2) yield* Deferred.succeed(both, undefined)
              yield* Deferred.await(both)
              return yield* offline.summarize(request)
            })
        })
        const worker = () =>
          Effect.map(
            Layer.build(engine(CompactionStoreSql.layer.pipe(Layer.provide(client)), gated)),
            Context.get(Compactor.Compactor)
          )
        const [a, b] = [yield* worker(), yield* worker()]
        const results = yield* Effect.all([a.checkpoint(input(longSession)), b.checkpoint(input(longSession))], {
          concurrency: "unbounded"
        })
        assert.strictEqual(yield* Ref.get(asked), 2)
        assert.strictEqual(results.filter((result) => Option.isSome(result.compacted)).length, 1)
        assert.strictEqual(JSON.stringify(results[0]!.view), JSON.stringify(results[1]!.view))
        const rows = yield* Effect.provide(
          Effect.flatMap(
            SqlClient,
            (sql) =>
              sql<
                { readonly compactions: number; readonly state: string }
              >`SELECT compactions, state FROM compaction_state`
          ),
          client
        )
        assert.strictEqual(rows.length, 1)
        assert.strictEqual(Number(rows[0]!.compactions), 1)
        assert.include(rows[0]!.state, "\"compacted-1\"")
      }).pipe(Effect.orDie))
  })
}
