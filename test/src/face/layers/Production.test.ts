import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as Production from "../../../../src/face/layers/Production.js"
import * as SummaryCacheSql from "../../../../src/face/layers/SummaryCacheSql.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Attention from "../../../../src/face/services/Attention.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as TranscriptArchive from "../../../../src/face/services/TranscriptArchive.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"
import * as Generated from "../../../transcripts.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-production-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const engineIn = (directory: string) =>
  Production.layerEngine({
    engine: { policies: builtInPolicies },
    services: Production.layerSqlite({ directory, env: () => ({}) })
  })

const session = Generated.fromTurns(
  Array.from({ length: 30 }, (_, i) => ({
    user: `request ${i}: ` + "rename the exporter flags and keep tx_0000feed in mind ".repeat(6),
    steps: [[{
      name: "bash",
      args: JSON.stringify({ command: `sed -n 1,200p src/export${i}.ts` }),
      result: `<returncode>0</returncode>\n<output>\n${"export const flag = 1\n".repeat(100)}</output>`
    }]],
    reply: `Renamed in src/export${i}.ts.`,
    accept: false
  }))
)

const checkpoint = (transcript: Transcript.Transcript, contextWindow = 12_000) =>
  Effect.flatMap(
    Compactor.Compactor,
    (compactor) => compactor.checkpoint({ sessionId: "s1", transcript, model: "m", contextWindow })
  )

describe("Production.layerSqlite", () => {
  it.scoped("compacts into its folder (cache, state, archive), and a new process on the folder rebuilds the same view", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const first = yield* Effect.scoped(Effect.provide(checkpoint(session), engineIn(dir)))
      const report = Option.getOrThrow(first.compacted)
      const paths = Production.pathsOf(dir)
      assert.isTrue(Fs.existsSync(paths.cache) && Fs.existsSync(paths.state))
      // Named relative to the folder, in the report and in the block sent to the model: no path of the machine.
      assert.match(report.archivePath!, /^transcripts\/s1\/compaction-1-[0-9a-f]{12}\.jsonl$/)
      assert.isTrue(Fs.existsSync(NodePath.join(dir, report.archivePath!)))
      const block = JSON.stringify(first.view)
      assert.include(block, report.archivePath!)
      assert.notInclude(block, dir)
      const again = yield* Effect.scoped(Effect.provide(checkpoint(session), engineIn(dir)))
      assert.isTrue(Option.isNone(again.compacted))
      assert.strictEqual(JSON.stringify(again.view), JSON.stringify(first.view))
    }))

  it.scoped("reads config.toml from its folder, and an override set while running is seen by the next checkpoint", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      Fs.writeFileSync(NodePath.join(dir, "config.toml"), "[compaction]\ntrigger_pct = 50\n")
      yield* Effect.gen(function*() {
        const before = yield* checkpoint(session.slice(0, 3), 100_000)
        assert.strictEqual(before.trigger, 50_000)
        yield* (yield* Settings.SettingsOverrides).set("trigger_pct", 20)
        const after = yield* checkpoint(session.slice(0, 3), 100_000)
        assert.strictEqual(after.trigger, 20_000)
      }).pipe(Effect.provide(engineIn(dir)), Effect.scoped)
    }))

  it.scoped("an invalid config.toml fails the layer with a SettingsError naming the key and its range", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      Fs.writeFileSync(NodePath.join(dir, "config.toml"), "[compaction]\ntrigger_pct = 120\n")
      const error = yield* Effect.flip(Effect.scoped(Layer.build(engineIn(dir))))
      assert.strictEqual(error._tag, "SettingsError")
      if (error._tag === "SettingsError") {
        assert.strictEqual(error.key, "trigger_pct")
        assert.include(error.message, "10")
        assert.include(error.message, "95")
      }
    }))

  it.scoped("a corrupt cache file does not stop compaction and is left as it was", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const garbage = "this is not a SQLite database ".repeat(100)
      Fs.writeFileSync(Production.pathsOf(dir).cache, garbage)
      const result = yield* Effect.scoped(Effect.provide(checkpoint(session), engineIn(dir)))
      assert.isTrue(Option.isSome(result.compacted))
      assert.strictEqual(Fs.readFileSync(Production.pathsOf(dir).cache, "utf8"), garbage)
    }))
})

SqlDatabases.describeOn(SqlDatabases.postgres, "Production.layerPg", () => {
  const engineOn = (directory: string, url: string) =>
    Compactor.layer({ policies: builtInPolicies }).pipe(
      Layer.provideMerge(Production.layerPg({ url, directory, env: () => ({}) }))
    )

  it.scoped("two workers with their own folders share the database: what one compacts and caches, the other restores without compacting", () =>
    Effect.gen(function*() {
      const { url } = yield* SqlDatabases.postgres.database
      const [one, other] = [yield* tempDir, yield* tempDir]
      const first = yield* Effect.scoped(Effect.provide(checkpoint(session), engineOn(one, url)))
      assert.isTrue(Option.isSome(first.compacted))
      assert.deepStrictEqual(
        Fs.readdirSync(one),
        [],
        "nothing is written in the folder: no SQLite file, no transcripts/"
      )
      assert.match(Option.getOrThrow(first.compacted).archivePath ?? "", /^archive database: /)
      const restored = yield* Effect.scoped(Effect.provide(checkpoint(session), engineOn(other, url)))
      assert.isTrue(Option.isNone(restored.compacted))
      assert.strictEqual(JSON.stringify(restored.view), JSON.stringify(first.view))
      const stats = yield* Effect.scoped(
        Effect.provide(Effect.flatMap(SummaryCacheSql.SqlCache, (cache) => cache.stats), engineOn(other, url))
      )
      assert.strictEqual(stats.entries, 1)
    }))

  it.scoped("a recall handle of a message the first worker archived resolves through the second, for its session only", () =>
    Effect.gen(function*() {
      const { url } = yield* SqlDatabases.postgres.database
      const [one, other] = [yield* tempDir, yield* tempDir]
      const first = yield* Effect.scoped(Effect.provide(checkpoint(session), engineOn(one, url)))
      const moved = session.find((message) => message._tag === "ToolResult")!
      assert.isTrue(Option.isSome(first.compacted))
      const handle = Recall.handleOf("s1", Transcript.text(moved))
      const lookup = (sessionId: string) =>
        Effect.scoped(
          Effect.provide(
            Effect.flatMap(TranscriptArchive.TranscriptArchive, (archive) => archive.lookup!(sessionId, handle)),
            engineOn(other, url)
          )
        )
      const found = yield* lookup("s1")
      assert.strictEqual(Option.map(found, Transcript.text).pipe(Option.getOrUndefined), Transcript.text(moved))
      assert.isTrue(Option.isNone(yield* lookup("another-session")))
    }))

  it.scoped("a server that cannot be reached fails the layer with ConnectError, its password masked", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.scoped(Layer.build(engineOn(yield* tempDir, "postgres://worker:s3cret@127.0.0.1:1/fleet")))
      )
      assert.strictEqual(error._tag, "ConnectError")
      if (error._tag === "ConnectError") {
        assert.strictEqual(error.url, "postgres://worker:***@127.0.0.1:1/fleet")
        assert.include(error.reason, "ECONNREFUSED")
      }
    }))
})

describe("SQLite as installed", () => {
  it.scoped("Production.layerMemory compacts with nothing on disk: the archive in memory, settings from the environment and the values given", () =>
    Effect.gen(function*() {
      const layer = Compactor.layer({ policies: builtInPolicies }).pipe(
        Layer.provide(
          Production.layerMemory({
            env: () => ({ CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "90" }),
            values: { capTokens: 10_000 }
          })
        )
      )
      const result = yield* Effect.provide(checkpoint(session, 400_000), layer)
      const report = Option.getOrThrow(result.compacted)
      assert.match(report.archivePath ?? "", /^the compactor's memory archive \(compaction 1, [0-9a-f]{12}\)$/)
      assert.isAtMost(result.trigger, 10_000)
    }))
})

describe("Production.layerEngine", () => {
  const memory = () => Production.layerMemory({ env: () => ({}) })

  it.scoped("the engine runs on the services given, with the summariser given over theirs, and the services stay beside it", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const summarizer = Layer.succeed(
        Summarizer.Summarizer,
        Summarizer.Summarizer.of({
          summarize: (request) =>
            Effect.sync(
              () => (asked.push(request.model),
                "## Primary request\nRename the exporter flags.\n## Current work\nsrc/export29.ts")
            )
        })
      )
      const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services: memory(), summarizer })
      const { report, settings } = yield* Effect.gen(function*() {
        const result = yield* checkpoint(session)
        return { report: Option.getOrThrow(result.compacted), settings: yield* (yield* Settings.Settings).current }
      }).pipe(Effect.provide(engine))
      // The offline summariser of the services is never asked: every call the report counts is the one given.
      assert.isAbove(asked.length, 0)
      assert.deepStrictEqual(asked, asked.map(() => "m"))
      assert.strictEqual(report.summarizerCalls, asked.length)
      assert.strictEqual(settings.triggerPct, Settings.defaults.triggerPct)
    }))

  it.scoped("the attention given is the one an attended compaction asks when the summariser fails", () =>
    Effect.gen(function*() {
      const problems: Array<string> = []
      const summarizer = Layer.succeed(
        Summarizer.Summarizer,
        Summarizer.Summarizer.of({
          summarize: () => Effect.fail(new Summarizer.SummarizerError({ reason: "unavailable", message: "down" }))
        })
      )
      const attention = Layer.succeed(
        Attention.Attention,
        Attention.Attention.of({
          attended: Effect.succeed(true),
          choose: (problem) => Effect.sync(() => (problems.push(problem), "trim" as const))
        })
      )
      const engine = Production.layerEngine({
        engine: { policies: builtInPolicies },
        services: memory(),
        summarizer,
        attention
      })
      const report = Option.getOrThrow((yield* Effect.provide(checkpoint(session), engine)).compacted)
      assert.strictEqual(problems.length, 1)
      assert.strictEqual(report.fallback, "trim")
    }))
})
