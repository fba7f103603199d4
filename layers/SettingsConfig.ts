/**
 * The production settings: `config.toml`, the environment and, with
 * `layerSql`, the overrides persisted in SQL. Each level is over the ones
 * before it, lowest to highest:
 *
 * 1. the built-in defaults (`Settings.defaults`);
 * 2. the `[compaction]` table of config.toml;
 * 3. the environment, `CONTEXT_COMPRESSOR_COMPACTION_<KEY>`;
 * 4. the persisted overrides, set at run time through `SettingsOverrides`
 *    (the CLI `settings set`, the HTTP settings endpoint), so that what a user
 *    sets while running takes effect even where the environment sets the key.
 *
 * Every level is read live at each `current`: the file again when its size,
 * mtime or inode changed, the environment and the overrides at every call. An
 * invalid file or environment fails the layer when it is built; while
 * running, `current` keeps that level's last good values and logs one warning
 * per problem until it is fixed. See `docs/settings.md`.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Settings from "../services/Settings.js"
import * as Sources from "./internal/SettingsSources.js"
import * as SqlMigrations from "./sql/SqlMigrations.js"

/**
 * Where config.toml is read from when neither `options.path` nor
 * `CONTEXT_COMPRESSOR_CONFIG` names a file: relative to the working directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPath = ".context-compressor/config.toml"

/**
 * The environment variable naming the config file (below `options.path`, above `defaultPath`).
 *
 * @since 0.1.0
 * @category constants
 */
export const pathEnv = "CONTEXT_COMPRESSOR_CONFIG"

/**
 * The source named by errors about a value given to `SettingsOverrides`.
 *
 * @since 0.1.0
 * @category constants
 */
export const overrideSource = Sources.overrideSource

/**
 * The table the overrides are persisted in, and the source named by errors reading it.
 *
 * @since 0.1.0
 * @category constants
 */
export const overridesTable = "settings_overrides"

/**
 * Options of the layers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The config file; default: `$CONTEXT_COMPRESSOR_CONFIG`, else `defaultPath`. */
  readonly path?: string
  /** The environment, read at every `current`; default: `process.env`. */
  readonly env?: () => Record<string, string | undefined>
  /**
   * Values given in code (`createCompactor`'s `settings`, checked there): over
   * the config file and the environment, under the persisted overrides.
   */
  readonly values?: Settings.Values
}

/**
 * The values of a config file's text: its `[compaction]` table and its
 * top-level `compaction_<key>` settings (the SPEC's spelling), or the first
 * problem (syntax, an unknown key, a key set twice, a value of the wrong type
 * or out of range), naming `path` and the line. A file without either gives no values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromToml: (
  text: string,
  path: string
) => Either.Either<Settings.Values, Settings.SettingsError> = Sources.fromToml

/**
 * The values the environment sets (`CONTEXT_COMPRESSOR_COMPACTION_<KEY>`), or
 * the first problem (an unknown variable under the prefix, a value that is not
 * a number or out of range), naming the variable. A variable set to the
 * empty string counts as not set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnv: (
  env: Record<string, string | undefined>
) => Either.Either<Settings.Values, Settings.SettingsError> = Sources.fromEnv

/**
 * The text an override of `key` is persisted as: a number clamped into its
 * range, or the model id trimmed; refused for an unknown key, and for a value
 * that is not a number where the setting is numeric.
 *
 * @since 0.1.0
 * @category constructors
 */
export const overrideText: (
  key: string,
  value: string | number
) => Either.Either<readonly [Settings.Name, string], Settings.SettingsError> = Sources.overrideText

const keyList = Sources.keyList

const refuse = Sources.refuse

const overridesFromRows = Sources.overridesFromRows

/**
 * Reads one level live: `read` at every call; when it fails, the last good
 * values and one warning per distinct problem. The first read, made here,
 * must succeed.
 */
const liveLevel = Effect.fnUntraced(function*(
  read: Effect.Effect<Settings.Values, Settings.SettingsError>
) {
  const initial = yield* read
  const state = yield* Ref.make<{ readonly values: Settings.Values; readonly problem: string | undefined }>({
    values: initial,
    problem: undefined
  })
  return read.pipe(
    Effect.tap((values) => Ref.set(state, { values, problem: undefined })),
    Effect.catchAll((error) =>
      Effect.flatMap(
        Ref.modify(
          state,
          (last) => [[last.values, last.problem !== error.message] as const, { ...last, problem: error.message }]
        ),
        ([values, isNew]) =>
          isNew
            ? Effect.as(
              Effect.logWarning(`settings: ${error.message}; keeping the last good values until it is fixed`),
              values
            )
            : Effect.succeed(values)
      )
    )
  )
})

const configPath = (options: Options | undefined, env: () => Record<string, string | undefined>): string => {
  if (options?.path !== undefined) return options.path
  const named = env()[pathEnv]
  return named === undefined || named.trim() === "" ? defaultPath : named
}

/**
 * The config file as a level: re-read and re-parsed only when its stat
 * (size, mtime, inode) changed. A missing file gives no values.
 */
const fileLevel = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const cache = yield* Ref.make<
    { readonly stamp: string; readonly result: Either.Either<Settings.Values, Settings.SettingsError> } | undefined
  >(undefined)
  const unreadable = (error: { readonly message: string }) =>
    refuse({ reason: "unreadable", source: path, problem: `could not be read: ${error.message}` })
  const missing = (error: { readonly _tag: string; readonly reason?: string }) =>
    error._tag === "SystemError" && error.reason === "NotFound"
  const read = Effect.gen(function*() {
    const info = yield* fs.stat(path).pipe(
      Effect.map(Option.some),
      Effect.catchIf(missing, () => Effect.succeed(Option.none<FileSystem.File.Info>())),
      Effect.mapError(unreadable)
    )
    const stamp = Option.match(info, {
      onNone: () => "missing",
      onSome: (info) =>
        [
          info.type,
          info.size,
          Option.getOrUndefined(Option.map(info.mtime, (date) => date.getTime())),
          Option.getOrUndefined(info.ino)
        ]
          .join(":")
    })
    const cached = yield* Ref.get(cache)
    if (cached !== undefined && cached.stamp === stamp) return cached.result
    const result = Option.isNone(info)
      ? Either.right<Settings.Values>({})
      : yield* fs.readFileString(path).pipe(
        Effect.map((text) => fromToml(text, path)),
        Effect.catchIf(missing, () => Effect.succeed(Either.right<Settings.Values>({}))),
        Effect.catchAll((error) => Effect.succeed(Either.left(unreadable(error))))
      )
    yield* Ref.set(cache, { stamp, result })
    return result
  }).pipe(Effect.flatten)
  return yield* liveLevel(read)
})

const envLevel = (env: () => Record<string, string | undefined>) => liveLevel(Effect.suspend(() => fromEnv(env())))

/**
 * Builds `Settings` from config.toml and the environment, over the defaults.
 * Fails when the file or the environment is invalid now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options?: Options) {
  const env = options?.env ?? (() => process.env)
  const file = yield* fileLevel(configPath(options, env))
  const environment = yield* envLevel(env)
  const code = Effect.succeed(options?.values ?? {})
  const service = Settings.make({
    current: Effect.map(Effect.all([file, environment, code]), Settings.layered)
  })
  return service
})

/**
 * Builds `Settings` from the environment and the values given in code, over
 * the defaults, reading no file: the settings of a compactor that keeps its
 * state in memory. Fails when the environment is invalid now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeEnv = Effect.fnUntraced(function*(options?: Omit<Options, "path">) {
  const environment = yield* envLevel(options?.env ?? (() => process.env))
  const code = Effect.succeed(options?.values ?? {})
  return Settings.make({ current: Effect.map(Effect.all([environment, code]), Settings.layered) })
})

/**
 * Provides `Settings` from the environment and the values given in code,
 * over the defaults, read live; no config file is read.
 *
 * @example
 * ```ts
 * import { SettingsConfig } from "context-compressor/layers"
 * import { Settings } from "context-compressor/services"
 * import { Effect } from "effect"
 * const env = () => ({ CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "65" })
 * const current = Effect.flatMap(Settings.Settings, (settings) => settings.current)
 * const settings = await Effect.runPromise(Effect.provide(current, SettingsConfig.layerEnv({ env })))
 * assert.strictEqual(settings.triggerPct, 65)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEnv = (options?: Omit<Options, "path">): Layer.Layer<Settings.Settings, Settings.SettingsError> =>
  Layer.effect(Settings.Settings, makeEnv(options))

/** Where the overrides are kept: their rows (key, value as text), and the writes of one. */
interface OverridesTable<E> {
  readonly rows: Effect.Effect<ReadonlyArray<{ readonly key: string; readonly value: string }>, E>
  readonly upsert: (key: string, value: string, now: number) => Effect.Effect<void, E>
  readonly remove: (key: string) => Effect.Effect<void, E>
}

/** `Settings` over config.toml, the environment, the code's values and the overrides of `table`, with the `SettingsOverrides` that change them. */
const makeOver = Effect.fnUntraced(
  function*<E extends { readonly message: string }>(table: OverridesTable<E>, place: string, options?: Options) {
    const env = options?.env ?? (() => process.env)
    const file = yield* fileLevel(configPath(options, env))
    const environment = yield* envLevel(env)
    const rows = table.rows.pipe(
      Effect.mapError((error) =>
        refuse({ reason: "unreadable", source: place, problem: `could not be read: ${error.message}` })
      )
    )
    const overrides = yield* liveLevel(Effect.map(rows, overridesFromRows))
    const code = Effect.succeed(options?.values ?? {})
    const current = Effect.map(Effect.all([file, environment, code, overrides]), Settings.layered)
    const unwritable = (error: E) =>
      refuse({ reason: "unwritable", source: place, problem: `could not be written: ${error.message}` })
    const control = Settings.makeOverrides({
      get: Effect.map(rows, (rows) => {
        const values = overridesFromRows(rows)
        const byKey: Record<string, unknown> = {}
        for (const name of Settings.names) {
          if (values[name.field] !== undefined) byKey[name.key] = values[name.field]
        }
        return byKey as Settings.Overrides
      }),
      set: (key, value) =>
        Effect.gen(function*() {
          const [name, text] = yield* overrideText(key, value)
          const now = yield* Clock.currentTimeMillis
          yield* Effect.mapError(table.upsert(name.key, text, now), unwritable)
          return yield* current
        }),
      unset: (key) =>
        Effect.gen(function*() {
          const name = Option.getOrUndefined(Settings.nameOf(key))
          if (name === undefined) {
            return yield* refuse({
              reason: "unknown-key",
              source: overrideSource,
              key,
              problem: "is not a setting",
              allowed: keyList
            })
          }
          yield* Effect.mapError(table.remove(name.key), unwritable)
          return yield* current
        })
    })
    return Context.make(Settings.Settings, { current }).pipe(Context.add(Settings.SettingsOverrides, control))
  }
)

/**
 * Builds `Settings` from config.toml, the environment and the overrides
 * persisted in the `settings_overrides` table (migrated here), with the
 * `SettingsOverrides` that change them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = Effect.fnUntraced(function*(options?: Options) {
  const sql = yield* SqlClient.SqlClient
  yield* SqlMigrations.retryTransient(SqlMigrations.run)
  return yield* makeOver<SqlError>(
    {
      rows: sql<{ readonly key: string; readonly value: string }>`SELECT key, value FROM settings_overrides`.pipe(
        SqlMigrations.retryTransient
      ),
      upsert: (key, value, now) =>
        Effect.asVoid(sql`INSERT INTO settings_overrides (key, value, updated_at) VALUES (${key}, ${value}, ${now})
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`),
      remove: (key) => Effect.asVoid(sql`DELETE FROM settings_overrides WHERE key = ${key}`)
    },
    overridesTable,
    options
  )
})

/**
 * The source the overrides of {@link makeMemory} are named by in errors.
 *
 * @since 0.1.0
 * @category constants
 */
export const memorySource = "overrides in memory"

/**
 * Builds `Settings` from config.toml, the environment and overrides kept in
 * this process's memory (gone with it), with the `SettingsOverrides` that
 * change them: the settings of a folder whose SQLite file cannot be opened
 * because SQLite is not installed (`Production.layerFolderInMemory`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = Effect.fnUntraced(function*(options?: Options) {
  const table = yield* Ref.make(new Map<string, string>())
  return yield* makeOver<never>(
    {
      rows: Effect.map(Ref.get(table), (rows) => Array.from(rows, ([key, value]) => ({ key, value }))),
      upsert: (key, value) => Ref.update(table, (rows) => new Map(rows).set(key, value)),
      remove: (key) =>
        Ref.update(table, (rows) => {
          const next = new Map(rows)
          next.delete(key)
          return next
        })
    },
    memorySource,
    options
  )
})

/**
 * Provides `Settings` from config.toml, the environment and overrides kept in
 * memory (highest), read live, and the `SettingsOverrides` that change them
 * for the process's life. Fails with `SettingsError` when the file or the
 * environment is invalid when the layer is built.
 *
 * @example
 * ```ts
 * import { NodeContext } from "@effect/platform-node"
 * import { SettingsConfig } from "context-compressor/layers"
 * import { Layer } from "effect"
 * // config.toml and the environment, with the overrides of `config set` kept for the process's life.
 * const path = ".context-compressor/config.toml"
 * export const settings = SettingsConfig.layerMemory({ path }).pipe(Layer.provide(NodeContext.layer))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (
  options?: Options
): Layer.Layer<Settings.Settings | Settings.SettingsOverrides, Settings.SettingsError, FileSystem.FileSystem> =>
  Layer.effectContext(makeMemory(options))

/**
 * Provides `Settings` from config.toml and the environment over the
 * defaults, read live. Fails with `SettingsError` when either is invalid
 * when the layer is built.
 *
 * @example
 * ```ts
 * import { NodeContext } from "@effect/platform-node"
 * import { SettingsConfig } from "context-compressor/layers"
 * import { Layer } from "effect"
 * // Read-only settings: a config.toml of the application's, the environment over it.
 * export const settings = SettingsConfig.layerConfig({ path: "agent.toml" }).pipe(Layer.provide(NodeContext.layer))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options?: Options
): Layer.Layer<Settings.Settings, Settings.SettingsError, FileSystem.FileSystem> =>
  Layer.effect(Settings.Settings, make(options))

/**
 * Provides `Settings` from config.toml, the environment and the overrides
 * persisted through the current `SqlClient` (highest), read live, and the
 * `SettingsOverrides` that change them. Runs the migrations; fails with
 * `SettingsError` when the file or the environment is invalid when the layer is built.
 *
 * @example
 * ```ts
 * import { NodeContext } from "@effect/platform-node"
 * import { SettingsConfig, SqlPg } from "context-compressor/layers"
 * import { Layer, Redacted } from "effect"
 * // The overrides of `config set` in the fleet's database, so every worker sees them.
 * const sql = SqlPg.layer({ url: Redacted.make("postgres://agents@db.internal/agents") })
 * export const settings = SettingsConfig.layerSql().pipe(Layer.provide(Layer.merge(sql, NodeContext.layer)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (
  options?: Options
): Layer.Layer<
  Settings.Settings | Settings.SettingsOverrides,
  Settings.SettingsError | SqlError | Migrator.MigrationError,
  FileSystem.FileSystem | SqlClient.SqlClient
> => Layer.effectContext(makeSql(options))
