import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as fc from "fast-check"
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Toml from "smol-toml"
import * as SettingsConfig from "../../../../src/face/layers/SettingsConfig.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import { effectProp, layerProp } from "../../../support/Property.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

type Env = Record<string, string | undefined>

const current = Effect.flatMap(Settings.Settings, (settings) => settings.current)
const overrides = Settings.SettingsOverrides

/** A temporary directory, removed when the scope closes. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "context-compressor-settings-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

let clockSeconds = 1_700_000_000
/** Writes a config file with a later mtime than any before, so a change is seen even at equal size. */
const writeConfig = (path: string, text: string): void => {
  writeFileSync(path, text)
  clockSeconds += 10
  utimesSync(path, clockSeconds, clockSeconds)
}

/** Runs `self` collecting the messages of the warnings it logs. */
const withWarnings = <A, E, R>(self: (warnings: ReadonlyArray<string>) => Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const warnings: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (TestCompat.isWarning(logLevel)) warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
    return self(warnings).pipe(Effect.provide(TestCompat.addLogger(logger)))
  })

const configLayer = (options: SettingsConfig.Options) =>
  SettingsConfig.layerConfig(options).pipe(Layer.provide(Compat.nodeFileSystem))

const sqlLayer = (options: SettingsConfig.Options, filename = ":memory:") =>
  SettingsConfig.layerSql(options).pipe(
    Layer.provide(Layer.merge(Compat.nodeFileSystem, TestCompat.sqliteClient(filename)))
  )

const sqlLayerOn = (client: Layer.Layer<Compat.SqlClient>, options: SettingsConfig.Options) =>
  SettingsConfig.layerSql(options).pipe(Layer.provide(Layer.merge(Compat.nodeFileSystem, client)))

/** The error of a refused result, failing the test when it succeeded. */
const refusal = <A, E>(result: Compat.Result<A, E>): E =>
  Compat.matchResult(result, { onSuccess: () => assert.fail("expected a refusal"), onFailure: (error) => error })

/** The error a layer fails with when it is built. */
const buildError = <E, R>(layer: Layer.Layer<Settings.Settings, E, R>) => Effect.flip(Effect.scoped(Layer.build(layer)))

// Values every source can carry exactly: integers, hundredths for the fraction, plain model ids.
const values = {
  triggerPct: fc.integer({ min: 10, max: 95 }),
  capTokens: fc.integer({ min: 10_000, max: 2_000_000 }),
  summaryMaxTokens: fc.integer({ min: 1_000, max: 200_000 }),
  summarizerModel: fc.stringMatching(/^[a-z][a-z0-9.-]{0,15}$/),
  keepFraction: fc.integer({ min: 5, max: 80 }).map((hundredths) => hundredths / 100),
  envelopeCapChars: fc.integer({ min: 1_000, max: 1_000_000 }),
  replyReserveTokens: fc.integer({ min: 0, max: 200_000 }),
  summaryRequest: fc.constantFrom(...Settings.choices.summaryRequest)
}
const level = fc.record(values, { requiredKeys: [] }) as fc.Arbitrary<Settings.Values>

const tomlOf = (level: Settings.Values): string =>
  Toml.stringify({
    compaction: Object.fromEntries(Settings.names.flatMap((name) => {
      const value = level[name.field]
      return value === undefined ? [] : [[name.key, value]]
    }))
  })

const envOf = (level: Settings.Values): Env =>
  Object.fromEntries(Settings.names.flatMap((name) => {
    const value = level[name.field]
    return value === undefined ? [] : [[name.env, String(value)]]
  }))

describe("SettingsConfig", () => {
  it("the key-name table pairs every field with its snake_case key and environment variable", () => {
    assert.deepStrictEqual(Settings.names.map((name) => name.field), Object.keys(Settings.CompactionSettings.fields))
    assert.deepStrictEqual(Settings.names.find((name) => name.field === "summaryMaxTokens"), {
      field: "summaryMaxTokens",
      key: "summary_max_tokens",
      env: "CONTEXT_COMPRESSOR_COMPACTION_SUMMARY_MAX_TOKENS"
    })
    for (const name of Settings.names) {
      assert.deepStrictEqual(Settings.nameOf(name.key), Settings.nameOf(name.field))
      assert.deepStrictEqual(Settings.nameOf(name.env), Settings.nameOf(name.field))
    }
  })

  it.scoped("a missing config file and an empty environment give the defaults", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const settings = yield* current.pipe(
        Effect.provide(configLayer({ path: join(dir, "absent", "config.toml"), env: () => ({}) }))
      )
      assert.deepStrictEqual(settings, Settings.defaults)
    }))

  it.scoped("CONTEXT_COMPRESSOR_CONFIG names the config file, and options.path wins over it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeConfig(join(dir, "named.toml"), "[compaction]\ntrigger_pct = 50\n")
      writeConfig(join(dir, "given.toml"), "[compaction]\ntrigger_pct = 60\n")
      const env = () => ({ [SettingsConfig.pathEnv]: join(dir, "named.toml") })
      const named = yield* current.pipe(Effect.provide(configLayer({ env })))
      assert.strictEqual(named.triggerPct, 50)
      const given = yield* current.pipe(Effect.provide(configLayer({ env, path: join(dir, "given.toml") })))
      assert.strictEqual(given.triggerPct, 60)
    }))

  it("a top-level compaction_<key> (the SPEC's spelling) sets the same value as the [compaction] table, and setting one key both ways is refused", () => {
    const flat = SettingsConfig.fromToml(
      "compaction_summary_max_tokens = 12000\n[compaction]\ntrigger_pct = 70\n",
      "c.toml"
    )
    assert.deepStrictEqual(TestCompat.getOrThrow(flat), { summaryMaxTokens: 12_000, triggerPct: 70 })
    const twice = SettingsConfig.fromToml("compaction_trigger_pct = 60\n[compaction]\ntrigger_pct = 70\n", "c.toml")
    assert.strictEqual(refusal(twice).key, "compaction_trigger_pct")
    assert.include(refusal(twice).message, "a second time")
    const unknown = SettingsConfig.fromToml("compaction_window = 3\n", "c.toml")
    assert.isTrue(refusal(unknown).reason === "unknown-key" && refusal(unknown).source === "c.toml:1")
    const outOfRange = SettingsConfig.fromToml("compaction_trigger_pct = 99\n", "c.toml")
    assert.isTrue(refusal(outOfRange).reason === "out-of-range")
  })

  it("summary_request takes one of its words from the file, the environment and the overrides, and any other word is refused naming them", () => {
    assert.deepStrictEqual(
      TestCompat.getOrThrow(
        SettingsConfig.fromToml("[compaction]\nsummary_request = \"shared-prefix\"\n", "c.toml")
      ),
      { summaryRequest: "shared-prefix" }
    )
    assert.deepStrictEqual(
      TestCompat.getOrThrow(SettingsConfig.fromEnv({ CONTEXT_COMPRESSOR_COMPACTION_SUMMARY_REQUEST: " delimited " })),
      { summaryRequest: "delimited" }
    )
    assert.isTrue(TestCompat.isSuccess(SettingsConfig.overrideText("summary_request", "shared-prefix")))
    for (
      const refused of [
        SettingsConfig.fromToml("[compaction]\nsummary_request = \"shared\"\n", "c.toml"),
        SettingsConfig.fromEnv({ CONTEXT_COMPRESSOR_COMPACTION_SUMMARY_REQUEST: "prefix" }),
        SettingsConfig.overrideText("summaryRequest", "both")
      ] as ReadonlyArray<Compat.Result<unknown, Settings.SettingsError>>
    ) {
      assert.isTrue(
        TestCompat.isFailure(refused) && refusal(refused).reason === "out-of-range",
        JSON.stringify(refused)
      )
      assert.include(refusal(refused).message, `"delimited", "shared-prefix"`)
    }
    assert.isTrue(TestCompat.isFailure(SettingsConfig.fromToml("[compaction]\nsummary_request = 1\n", "c.toml")))
    assert.strictEqual(
      Settings.clamp(
        // Made past the constructor: Effect 4's constructor without checks still refuses a word the type does not hold.
        Object.assign(Object.create(Settings.CompactionSettings.prototype) as Settings.CompactionSettings, {
          ...Settings.defaults,
          summaryRequest: "other" as "delimited"
        })
      ).summaryRequest,
      "delimited"
    )
  })

  effectProp(
    "the effective value of every key is the highest-precedence one present: overrides > environment > file > default",
    [fc.record({ file: level, env: level, override: level })],
    ([{ env, file, override }]) =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const path = join(dir, "config.toml")
        writeConfig(path, tomlOf(file))
        const settings = yield* Effect.gen(function*() {
          const control = yield* overrides
          for (const name of Settings.names) {
            const value = override[name.field]
            if (value !== undefined) yield* control.set(name.key, value)
          }
          return yield* current
        }).pipe(Effect.provide(sqlLayer({ path, env: () => envOf(env) })))
        for (const name of Settings.names) {
          const expected = override[name.field] ?? env[name.field] ?? file[name.field] ?? Settings.defaults[name.field]
          assert.strictEqual(settings[name.field], expected, name.key)
        }
      }).pipe(Effect.scoped),
    { fastCheck: { numRuns: 40 } }
  )

  effectProp(
    "read live, the settings are the very same value while no level changed, and a change of any level shows at the next read",
    [fc.record({ first: level, second: level, where: fc.constantFrom("file", "env", "override") })],
    ([{ first, second, where }]) =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const path = join(dir, "config.toml")
        writeConfig(path, tomlOf(where === "file" ? first : {}))
        let env = envOf(where === "env" ? first : {})
        yield* Effect.gen(function*() {
          const control = yield* overrides
          const setAll = (values: Settings.Values) =>
            Effect.forEach(Settings.names, (name) => {
              const value = values[name.field]
              return value === undefined ? control.unset(name.key) : control.set(name.key, value)
            })
          if (where === "override") yield* setAll(first)
          const before = yield* current
          assert.strictEqual(yield* current, before)
          if (where === "file") writeConfig(path, tomlOf(second))
          if (where === "env") env = envOf(second)
          if (where === "override") yield* setAll(second)
          const after = yield* current
          for (const name of Settings.names) {
            assert.strictEqual(after[name.field], second[name.field] ?? Settings.defaults[name.field], name.key)
          }
          assert.strictEqual(yield* current, after)
        }).pipe(Effect.provide(sqlLayer({ path, env: () => env })))
      }).pipe(Effect.scoped),
    { fastCheck: { numRuns: 30 } }
  )

  it.live("a config file made, changed or removed in a folder that had none is read at the next read", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = join(dir, "config.toml")
      // A folder unchanged for a minute: a file missing from it is taken as still missing while the folder stays so.
      const settled = Math.floor(Date.now() / 1000) - 60
      utimesSync(dir, settled, settled)
      yield* Effect.gen(function*() {
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* current).triggerPct, Settings.defaults.triggerPct)
        writeFileSync(path, "[compaction]\ntrigger_pct = 61\n")
        assert.strictEqual((yield* current).triggerPct, 61)
        writeConfig(path, "[compaction]\ntrigger_pct = 62\n")
        assert.strictEqual((yield* current).triggerPct, 62)
        rmSync(path)
        utimesSync(dir, settled, settled)
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* current).triggerPct, Settings.defaults.triggerPct)
        // Made again in the folder last seen settled: its mtime changes, so the file is read.
        writeFileSync(path, "[compaction]\ntrigger_pct = 63\n")
        assert.strictEqual((yield* current).triggerPct, 63)
      }).pipe(Effect.provide(configLayer({ path, env: () => ({}) })))
    }).pipe(Effect.scoped))

  // The stats the layer makes of each path, through Node's file system.
  const countingFileSystem = (stats: Map<string, number>) =>
    Layer.effect(
      Compat.FileSystem,
      Effect.map(Compat.FileSystem, (fs) => ({
        ...fs,
        stat: (path: string) => {
          stats.set(path, (stats.get(path) ?? 0) + 1)
          return fs.stat(path)
        }
      }))
    ).pipe(Layer.provide(Compat.nodeFileSystem))

  it.live("a missing file's folder is settled 100 ms after its change when its mtime keeps milliseconds, 3 s when whole seconds", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = join(dir, "config.toml")
      const statsOf = (mtimeSeconds: number) =>
        Effect.gen(function*() {
          utimesSync(dir, mtimeSeconds, mtimeSeconds)
          const stats = new Map<string, number>()
          yield* Effect.gen(function*() {
            for (let i = 0; i < 5; i++) assert.strictEqual((yield* current).triggerPct, Settings.defaults.triggerPct)
          }).pipe(Effect.provide(
            SettingsConfig.layerConfig({ path, env: () => ({}) }).pipe(
              Layer.provide(countingFileSystem(stats))
            )
          ))
          return stats.get(path) ?? 0
        })
      const now = Date.now() / 1000
      // A second ago, with milliseconds: settled. The layer's first read and the next (the first to stat the folder,
      // which finds it settled) stat the file; the three after it only the folder.
      assert.strictEqual(yield* statsOf(Math.floor(now) - 1 + 0.437), 2)
      // A second ago on a whole second, as a coarse clock writes it: not yet settled, the file is stat'ed each time.
      assert.strictEqual(yield* statsOf(Math.floor(now) - 1), 6)
      // A minute ago on a whole second: settled.
      assert.strictEqual(yield* statsOf(Math.floor(now) - 60), 2)
      // Made now in the folder last seen settled: its mtime changes, so the file is read at the next read.
      yield* Effect.gen(function*() {
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* current).triggerPct, Settings.defaults.triggerPct)
        writeFileSync(path, "[compaction]\ntrigger_pct = 64\n")
        assert.strictEqual((yield* current).triggerPct, 64)
      }).pipe(Effect.provide(configLayer({ path, env: () => ({}) })))
    }).pipe(Effect.scoped))

  describe("invalid values from the file or the environment fail the layer with SettingsError", () => {
    const range = (field: Settings.NumericField) =>
      `a number from ${Settings.ranges[field][0]} to ${Settings.ranges[field][1]}`
    const cases: ReadonlyArray<{
      readonly title: string
      readonly toml?: string
      readonly env?: Env
      readonly reason: Settings.SettingsErrorReason
      readonly source: (path: string) => string
      readonly key?: string
      readonly value: string
      readonly allowed: string
    }> = [
      {
        title: "a TOML syntax error names the file, line and column",
        toml: "[compaction]\ntrigger_pct = = 3\n",
        reason: "syntax",
        source: (path) => `${path}:2:15`,
        value: "trigger_pct = = 3",
        allowed: "TOML (https://toml.io)"
      },
      {
        title: "an unknown key in [compaction]",
        toml: "[compaction]\ntrigger_pct = 50\ntriger_pct = 50\n",
        reason: "unknown-key",
        source: (path) => `${path}:3`,
        key: "triger_pct",
        value: "50",
        allowed:
          "trigger_pct, cap_tokens, summary_max_tokens, summarizer_model, keep_fraction, envelope_cap_chars, reply_reserve_tokens, target_after_pct, summary_request"
      },
      {
        title: "a string where a number is expected",
        toml: "[compaction]\n\ncap_tokens = \"250000\"\n",
        reason: "wrong-type",
        source: (path) => `${path}:3`,
        key: "cap_tokens",
        value: "\"250000\"",
        allowed: range("capTokens")
      },
      {
        title: "a number where a model id is expected",
        toml: "[compaction]\nsummarizer_model = 3\n",
        reason: "wrong-type",
        source: (path) => `${path}:2`,
        key: "summarizer_model",
        value: "3",
        allowed: Settings.allowed("summarizerModel")
      },
      {
        title: "compaction that is not a table",
        toml: "compaction = 3\n",
        reason: "wrong-type",
        source: (path) => `${path}:1`,
        key: "compaction",
        value: "3",
        allowed:
          "a [compaction] table of trigger_pct, cap_tokens, summary_max_tokens, summarizer_model, keep_fraction, envelope_cap_chars, reply_reserve_tokens, target_after_pct, summary_request"
      },
      {
        title: "a number out of range in the file (dotted key)",
        toml: "title = \"x\"\ncompaction.trigger_pct = 120\n",
        reason: "out-of-range",
        source: (path) => `${path}:2`,
        key: "trigger_pct",
        value: "120",
        allowed: range("triggerPct")
      },
      {
        title: "an infinite number in the file",
        toml: "[compaction]\nkeep_fraction = inf\n",
        reason: "out-of-range",
        source: (path) => `${path}:2`,
        key: "keep_fraction",
        value: "Infinity",
        allowed: range("keepFraction")
      },
      {
        title: "nan in the file",
        toml: "[compaction]\nsummary_max_tokens = nan\n",
        reason: "not-a-number",
        source: (path) => `${path}:2`,
        key: "summary_max_tokens",
        value: "NaN",
        allowed: range("summaryMaxTokens")
      },
      {
        title: "an environment value that is not a number",
        env: { CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "eighty" },
        reason: "not-a-number",
        source: () => "CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT",
        key: "trigger_pct",
        value: "\"eighty\"",
        allowed: range("triggerPct")
      },
      {
        title: "an environment value out of range",
        env: { CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS: "3000000" },
        reason: "out-of-range",
        source: () => "CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS",
        key: "cap_tokens",
        value: "\"3000000\"",
        allowed: range("capTokens")
      },
      {
        title: "an unknown environment variable under the prefix",
        env: { CONTEXT_COMPRESSOR_COMPACTION_TRIGER_PCT: "50" },
        reason: "unknown-key",
        source: () => "CONTEXT_COMPRESSOR_COMPACTION_TRIGER_PCT",
        key: "triger_pct",
        value: "\"50\"",
        allowed: Settings.names.map((name) => name.env).join(", ")
      }
    ]
    for (const example of cases) {
      it.scoped(example.title, () =>
        Effect.gen(function*() {
          const dir = yield* tempDir
          const path = join(dir, "config.toml")
          if (example.toml !== undefined) writeConfig(path, example.toml)
          const error = yield* buildError(configLayer({ path, env: () => example.env ?? {} }))
          assert.instanceOf(error, Settings.SettingsError)
          assert.strictEqual(error.reason, example.reason)
          assert.strictEqual(error.source, example.source(path))
          assert.strictEqual(error.key, example.key)
          assert.strictEqual(error.value, example.value)
          assert.strictEqual(error.allowed, example.allowed)
          assert.include(error.message, example.source(path))
          if (example.key !== undefined) assert.include(error.message, example.key)
          assert.include(error.message, example.allowed)
        }))
    }

    it.scoped("layerSql fails the same way", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const error = yield* buildError(
          sqlLayer({ path: join(dir, "config.toml"), env: () => ({ CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "5" }) })
        )
        assert.strictEqual(error._tag, "SettingsError")
      }))
  })

  it.scoped("a variable set to the empty string counts as not set; an empty summarizer_model unpins the model", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = join(dir, "config.toml")
      writeConfig(path, "[compaction]\nsummarizer_model = \"file-model\"\n")
      const env: Env = { CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "" }
      yield* Effect.gen(function*() {
        assert.strictEqual((yield* current).summarizerModel, "file-model")
        assert.strictEqual((yield* current).triggerPct, Settings.defaults.triggerPct)
        const unpinned = yield* (yield* overrides).set("summarizer_model", "")
        assert.isFalse("summarizerModel" in unpinned, "the session's own model")
      }).pipe(Effect.provide(sqlLayer({ path, env: () => env })))
    }))

  it.scoped("a change to the file, the environment or the overrides is seen by the next current without rebuilding", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = join(dir, "config.toml")
      const env: Env = {}
      yield* Effect.gen(function*() {
        const control = yield* overrides
        assert.deepStrictEqual(yield* current, Settings.defaults)

        writeConfig(path, "[compaction]\ntrigger_pct = 70\ncap_tokens = 100000\n")
        assert.strictEqual((yield* current).triggerPct, 70)

        env["CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT"] = "40"
        assert.strictEqual((yield* current).triggerPct, 40)

        const set = yield* control.set("trigger_pct", 60)
        assert.strictEqual(set.triggerPct, 60, "set gives the settings in effect")
        assert.strictEqual((yield* current).triggerPct, 60, "an override wins over the environment")

        writeConfig(path, "[compaction]\ntrigger_pct = 75\ncap_tokens = 120000\n")
        const edited = yield* current
        assert.strictEqual(edited.capTokens, 120_000)
        assert.strictEqual(edited.triggerPct, 60)

        const unset = yield* control.unset("trigger_pct")
        assert.strictEqual(unset.triggerPct, 40)
        delete env["CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT"]
        assert.strictEqual((yield* current).triggerPct, 75)

        rmSync(path)
        assert.deepStrictEqual(yield* current, Settings.defaults, "a file removed while running gives the defaults")
      }).pipe(Effect.provide(sqlLayer({ path, env: () => env })))
    }))

  it.scoped("the file is read again only when its stat changes", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = join(dir, "config.toml")
      writeConfig(path, "[compaction]\ntrigger_pct = 70\n")
      let reads = 0
      const counting = Layer.effect(
        Compat.FileSystem,
        Effect.map(Compat.FileSystem, (fs) => ({
          ...fs,
          readFileString: (path: string, encoding?: string) => {
            reads++
            return fs.readFileString(path, encoding)
          }
        }))
      ).pipe(Layer.provide(Compat.nodeFileSystem))
      yield* Effect.gen(function*() {
        for (let i = 0; i < 5; i++) yield* current
        assert.strictEqual(reads, 1)
        writeConfig(path, "[compaction]\ntrigger_pct = 71\n")
        for (let i = 0; i < 5; i++) assert.strictEqual((yield* current).triggerPct, 71)
        assert.strictEqual(reads, 2)
      }).pipe(Effect.provide(SettingsConfig.layerConfig({ path, env: () => ({}) }).pipe(Layer.provide(counting))))
    }))

  it.scoped("a file broken while running keeps the last good values and logs one warning until it is fixed", () =>
    withWarnings((warnings) =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const path = join(dir, "config.toml")
        writeConfig(path, "[compaction]\ntrigger_pct = 70\n")
        yield* Effect.gen(function*() {
          assert.strictEqual((yield* current).triggerPct, 70)

          writeConfig(path, "[compaction]\ntrigger_pct = = 71\n")
          for (let i = 0; i < 3; i++) assert.strictEqual((yield* current).triggerPct, 70)
          assert.strictEqual(warnings.length, 1)
          assert.include(warnings[0], `${path}:2`)
          assert.include(warnings[0], "not valid TOML")

          writeConfig(path, "[compaction]\ntrigger_pct = 72\n")
          assert.strictEqual((yield* current).triggerPct, 72)
          assert.strictEqual(warnings.length, 1, "no warning once fixed")

          writeConfig(path, "[compaction]\ntrigger_pct = 720\n")
          for (let i = 0; i < 3; i++) assert.strictEqual((yield* current).triggerPct, 72)
          assert.strictEqual(warnings.length, 2)
          assert.include(warnings[1], "trigger_pct = 720")
          assert.include(warnings[1], "a number from 10 to 95")
        }).pipe(Effect.provide(configLayer({ path, env: () => ({}) })))
      })
    ))

  it.scoped("an environment broken while running keeps its last good values and logs one warning", () =>
    withWarnings((warnings) =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const env: Env = { CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS: "100000" }
        yield* Effect.gen(function*() {
          env["CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS"] = "lots"
          for (let i = 0; i < 3; i++) assert.strictEqual((yield* current).capTokens, 100_000)
          assert.strictEqual(warnings.length, 1)
          assert.include(warnings[0], "CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS")
          env["CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS"] = "200000"
          assert.strictEqual((yield* current).capTokens, 200_000)
        }).pipe(Effect.provide(configLayer({ path: join(dir, "config.toml"), env: () => env })))
      })
    ))

  for (const dialect of SqlDatabases.dialects) {
    SqlDatabases.describeOn(dialect, "overrides", () => {
      it.layer(
        sqlLayerOn(dialect.fresh, {
          path: join(tmpdir(), "context-compressor-no-such-dir", "config.toml"),
          env: () => ({})
        })
      )(
        (it) => {
          it.effect("a number out of range is clamped into it, not refused", () =>
            Effect.gen(function*() {
              const control = yield* overrides
              assert.strictEqual((yield* control.set("trigger_pct", 99)).triggerPct, 95)
              assert.strictEqual((yield* control.set("capTokens", "3_000_000")).capTokens, 2_000_000)
              assert.strictEqual((yield* control.set("cap_tokens", 1)).capTokens, 10_000)
              const stored = yield* control.get
              assert.strictEqual(stored.trigger_pct, 95)
              assert.strictEqual(stored.cap_tokens, 10_000)
              yield* control.unset("trigger_pct")
              yield* control.unset("cap_tokens")
              assert.deepStrictEqual(yield* control.get, {})
            }))

          layerProp(it)(
            "any finite number set for a numeric key lands clamped in its range",
            [fc.record({
              field: fc.constantFrom(...(Object.keys(Settings.ranges) as Array<Settings.NumericField>)),
              value: fc.double({ noNaN: true, noDefaultInfinity: true })
            })],
            ([{ field, value }]) =>
              Effect.gen(function*() {
                const settings = yield* (yield* overrides).set(Settings.keys[field], value)
                const [low, high] = Settings.ranges[field]
                assert.strictEqual(settings[field], Math.min(Math.max(value, low), high))
              })
          )

          const refused: ReadonlyArray<readonly [string, string | number, Settings.SettingsErrorReason]> = [
            ["trigger_pct", "abc", "not-a-number"],
            ["trigger_pct", "", "not-a-number"],
            ["cap_tokens", Number.NaN, "not-a-number"],
            ["cap_tokens", Infinity, "not-a-number"],
            ["summarizer_model", 3, "wrong-type"],
            ["triger_pct", 50, "unknown-key"]
          ]
          for (const [key, value, reason] of refused) {
            it.effect(`set ${key} = ${typeof value === "string" ? JSON.stringify(value) : value} is refused (${reason}), naming the key and what it accepts`, () =>
              Effect.gen(function*() {
                const control = yield* overrides
                const before = yield* control.get
                const error = yield* Effect.flip(control.set(key, value))
                assert.strictEqual(error.reason, reason)
                assert.strictEqual(error.source, SettingsConfig.overrideSource)
                assert.strictEqual(error.key, key)
                assert.include(error.message, key)
                assert.isDefined(error.allowed)
                assert.include(error.message, error.allowed ?? "")
                assert.deepStrictEqual(yield* control.get, before, "nothing persisted")
              }))
          }

          it.effect("unset of an unknown key is refused", () =>
            Effect.gen(function*() {
              const error = yield* Effect.flip((yield* overrides).unset("nope"))
              assert.strictEqual(error.reason, "unknown-key")
            }))
        }
      )

      it.scoped("persisted overrides survive closing and reopening the database, and are seen by another worker", () =>
        Effect.gen(function*() {
          const dir = yield* tempDir
          const { client } = yield* dialect.database
          const options = { path: join(dir, "config.toml"), env: () => ({}) }
          yield* Effect.flatMap(
            overrides,
            (control) => Effect.andThen(control.set("trigger_pct", 42), control.set("summarizer_model", "pinned-model"))
          ).pipe(
            Effect.provide(sqlLayerOn(client, options))
          )
          const [stored, settings] = yield* Effect.all([Effect.flatMap(overrides, (control) => control.get), current])
            .pipe(
              Effect.provide(sqlLayerOn(client, options))
            )
          assert.deepStrictEqual(stored, { trigger_pct: 42, summarizer_model: "pinned-model" })
          assert.strictEqual(settings.triggerPct, 42)
          assert.strictEqual(settings.summarizerModel, "pinned-model")
          // Two workers at once: what one sets, the other reads at its next `current`.
          yield* Effect.gen(function*() {
            const one = yield* Layer.build(sqlLayerOn(client, options))
            const other = yield* Layer.build(sqlLayerOn(client, options))
            yield* Context.get(one, Settings.SettingsOverrides).set("cap_tokens", 123_456)
            assert.strictEqual((yield* Context.get(other, Settings.Settings).current).capTokens, 123_456)
            yield* Context.get(other, Settings.SettingsOverrides).unset("trigger_pct")
            assert.strictEqual(
              (yield* Context.get(one, Settings.Settings).current).triggerPct,
              Settings.defaults.triggerPct
            )
          }).pipe(Effect.scoped)
        }))
    })
  }
})

describe("SettingsConfig.layerMemory", () => {
  const setting = fc.constantFrom(...Settings.names.map((name) => name.key))
  const operation = fc.oneof(
    fc.record({
      op: fc.constant("set" as const),
      key: setting,
      value: fc.oneof(fc.integer({ min: -10, max: 3_000_000 }), fc.constantFrom("abc", "", "70", "small-model"))
    }),
    fc.record({ op: fc.constant("unset" as const), key: fc.oneof(setting, fc.constant("nope")) })
  )

  effectProp(
    "overrides kept in memory behave as those persisted in SQLite: any sequence of set and unset gives the same settings, refusals and stored overrides",
    [fc.array(operation, { maxLength: 12 })],
    ([operations]) =>
      Effect.gen(function*() {
        const options = { path: join(tmpdir(), "context-compressor-no-such-dir", "config.toml"), env: () => ({}) }
        const run = Effect.gen(function*() {
          const control = yield* overrides
          const outcomes: Array<unknown> = []
          for (const each of operations) {
            const done = yield* Compat.result(
              each.op === "set" ? control.set(each.key, each.value) : control.unset(each.key)
            )
            outcomes.push(
              Compat.matchResult(done, {
                onFailure: (error): unknown => ({
                  refused: error.reason,
                  source: error.source === SettingsConfig.memorySource ? "store" : error.source
                }),
                onSuccess: (settings) => ({ ...settings })
              })
            )
          }
          return { outcomes, stored: yield* control.get, current: { ...(yield* current) } }
        })
        const inMemory = yield* run.pipe(
          Effect.provide(SettingsConfig.layerMemory(options).pipe(Layer.provide(Compat.nodeFileSystem)))
        )
        const persisted = yield* run.pipe(Effect.provide(sqlLayer(options)))
        assert.deepStrictEqual(inMemory, persisted)
      }),
    { fastCheck: { numRuns: 30 } }
  )
})
