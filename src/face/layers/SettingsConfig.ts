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
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Settings from "../services/Settings.js"
import * as Levels from "./internal/SettingsLevels.js"
import * as Sources from "./internal/SettingsSources.js"
import * as SqlMigrations from "./sql/SqlMigrations.js"

/**
 * Where config.toml is read from when neither `options.path` nor
 * `CONTEXT_COMPRESSOR_CONFIG` names a file: relative to the working directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPath = Levels.defaultPath

/**
 * The environment variable naming the config file (below `options.path`, above `defaultPath`).
 *
 * @since 0.1.0
 * @category constants
 */
export const pathEnv = Levels.pathEnv

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
export type Options = Levels.Options

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
) => Compat.Result<Settings.Values, Settings.SettingsError> = Sources.fromToml

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
) => Compat.Result<Settings.Values, Settings.SettingsError> = Sources.fromEnv

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
) => Compat.Result<readonly [Settings.Name, string], Settings.SettingsError> = Sources.overrideText

/**
 * Builds `Settings` from config.toml and the environment, over the defaults.
 * Fails when the file or the environment is invalid now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: typeof Levels.make = Levels.make

/**
 * Builds `Settings` from the environment and the values given in code, over
 * the defaults, reading no file: the settings of a compactor that keeps its
 * state in memory. Fails when the environment is invalid now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeEnv: typeof Levels.makeEnv = Levels.makeEnv

/**
 * Provides `Settings` from the environment and the values given in code,
 * over the defaults, read live; no config file is read.
 *
 * @example
 * ```ts
 * import { Production, SettingsConfig } from "context-compressor/layers"
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

/**
 * Builds `Settings` from config.toml, the environment and the overrides
 * persisted in the `settings_overrides` table (migrated here), with the
 * `SettingsOverrides` that change them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = Effect.fnUntraced(function*(options?: Options) {
  const sql = yield* Compat.SqlClient
  yield* SqlMigrations.retryTransient(SqlMigrations.run)
  return yield* Levels.makeOver<Compat.SqlError>(
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
export const memorySource = Levels.memorySource

/**
 * Builds `Settings` from config.toml, the environment and overrides kept in
 * this process's memory (gone with it), with the `SettingsOverrides` that
 * change them: the settings of a folder whose SQLite file cannot be opened
 * because SQLite is not installed (`Production.layerFolderInMemory`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: typeof Levels.makeMemory = Levels.makeMemory

/**
 * Provides `Settings` from config.toml, the environment and overrides kept in
 * memory (highest), read live, and the `SettingsOverrides` that change them
 * for the process's life. Fails with `SettingsError` when the file or the
 * environment is invalid when the layer is built.
 *
 * @example
 * ```ts
 * import { Production, SettingsConfig } from "context-compressor/layers"
 * import { Layer } from "effect"
 * // config.toml and the environment, with the overrides of `config set` kept for the process's life.
 * const path = ".context-compressor/config.toml"
 * export const settings = SettingsConfig.layerMemory({ path }).pipe(Layer.provide(Production.nodeFileSystem))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (
  options?: Options
): Layer.Layer<Settings.Settings | Settings.SettingsOverrides, Settings.SettingsError, Compat.FileSystem> =>
  Layer.effectContext(makeMemory(options))

/**
 * Provides `Settings` from config.toml and the environment over the
 * defaults, read live. Fails with `SettingsError` when either is invalid
 * when the layer is built.
 *
 * @example
 * ```ts
 * import { Production, SettingsConfig } from "context-compressor/layers"
 * import { Layer } from "effect"
 * // Read-only settings: a config.toml of the application's, the environment over it.
 * export const settings = SettingsConfig.layerConfig({ path: "agent.toml" }).pipe(Layer.provide(Production.nodeFileSystem))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options?: Options
): Layer.Layer<Settings.Settings, Settings.SettingsError, Compat.FileSystem> =>
  Layer.effect(Settings.Settings, make(options))

/**
 * Provides `Settings` from config.toml, the environment and the overrides
 * persisted through the current `SqlClient` (highest), read live, and the
 * `SettingsOverrides` that change them. Runs the migrations; fails with
 * `SettingsError` when the file or the environment is invalid when the layer is built.
 *
 * @example
 * ```ts
 * import { Production, SettingsConfig, SqlPg } from "context-compressor/layers"
 * import { Layer, Redacted } from "effect"
 * // The overrides of `config set` in the fleet's database, so every worker sees them.
 * const sql = SqlPg.layer({ url: Redacted.make("postgres://agents@db.internal/agents") })
 * export const settings = SettingsConfig.layerSql().pipe(Layer.provide(Layer.merge(sql, Production.nodeFileSystem)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (
  options?: Options
): Layer.Layer<
  Settings.Settings | Settings.SettingsOverrides,
  Settings.SettingsError | Compat.SqlError | Compat.MigrationError,
  Compat.FileSystem | Compat.SqlClient
> => Layer.effectContext(makeSql(options))
