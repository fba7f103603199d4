/**
 * Every service of the engine on its production layer, in one folder:
 * `cache.db` (the summary cache), `state.db` (compaction states and
 * persisted settings overrides), `config.toml`, and `transcripts/` (the
 * verbatim archive), with the o200k_base tokenizer and either the offline
 * summariser or an OpenAI-compatible chat-completions server. With
 * `layerPg`, the cache, the compaction states, the settings overrides and the
 * archive are in one PostgreSQL database instead, shared by a fleet of
 * workers, and the folder holds only `config.toml`. Each part
 * can still be swapped by providing another layer over it.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodePath from "node:path"
import * as Compactor from "../engine/Compactor.js"
import type * as OptionalPackage from "../models/OptionalPackage.js"
import type { Attention } from "../services/Attention.js"
import type { CompactionStore } from "../services/CompactionStore.js"
import type * as Settings from "../services/Settings.js"
import type { Summarizer } from "../services/Summarizer.js"
import type { SummaryCache } from "../services/SummaryCache.js"
import type { Tokenizer } from "../services/Tokenizer.js"
import type { TranscriptArchive } from "../services/TranscriptArchive.js"
import * as AttentionUnattended from "./AttentionUnattended.js"
import * as CompactionStoreMemory from "./CompactionStoreMemory.js"
import * as CompactionStoreSql from "./CompactionStoreSql.js"
import * as SettingsConfig from "./SettingsConfig.js"
import * as SqlPg from "./sql/SqlPg.js"
import * as StoreDeadline from "./StoreDeadline.js"
import * as SummarizerChatCompletions from "./SummarizerChatCompletions.js"
import * as SummarizerOffline from "./SummarizerOffline.js"
import * as SummaryCacheMemory from "./SummaryCacheMemory.js"
import * as SummaryCacheSql from "./SummaryCacheSql.js"
import * as TokenizerBpe from "./TokenizerBpe.js"
import * as TranscriptArchiveFile from "./TranscriptArchiveFile.js"
import * as TranscriptArchiveMemory from "./TranscriptArchiveMemory.js"
import * as TranscriptArchiveSql from "./TranscriptArchiveSql.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The folder of the databases, config file and archive (default `.context-compressor`). */
  readonly directory?: string
  /**
   * `offline` (default): the extractive summariser, no model. `chat-completions`:
   * an OpenAI-compatible server configured from the environment
   * (`CONTEXT_COMPRESSOR_OPENAI_BASE_URL`, `CONTEXT_COMPRESSOR_OPENAI_API_KEY` or `OPENAI_API_KEY`).
   */
  readonly summarizer?: "offline" | "chat-completions"
  /** The environment settings are read from (default `process.env`). */
  readonly env?: () => Record<string, string | undefined>
  /** Settings given in code: over `config.toml` and the environment, under the persisted overrides. */
  readonly values?: Settings.Values
  /**
   * How long a call of a store on disk or on a server (the compaction states
   * and the sessions' memory, the summary cache, the transcript archive)
   * may go unanswered before it counts as the store's failure (default
   * `StoreDeadline.defaultTimeout`, 3 s; see `StoreDeadline`). On SQLite,
   * whose calls run on the event loop where no deadline can end them, it is
   * the busy timeout of `state.db` (and `cache.db`'s is kept under it); the
   * deadline itself bounds the archive's files.
   */
  readonly storeTimeout?: Compat.DurationInput | undefined
}

/**
 * What the engine needs of every production layer: `layerMemory` gives these,
 * `layerSqlite` and `layerPg` more.
 *
 * @since 0.1.0
 * @category models
 */
export type Services = Summarizer | SummaryCache | CompactionStore | Settings.Settings | Tokenizer | Attention

/**
 * Why a production layer could not be built, whichever it is.
 *
 * @since 0.1.0
 * @category models
 */
export type StartFailure =
  | Compat.SqliteOpenError
  | SqlPg.ConnectError
  | OptionalPackage.MissingPackageError
  | Settings.SettingsError
  | Compat.SqlError
  | Compat.MigrationError
  | Compat.ConfigError

/**
 * The default folder.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultDirectory = ".context-compressor"

/**
 * The files of a folder.
 *
 * @since 0.1.0
 * @category paths
 */
export const pathsOf = (directory: string = defaultDirectory) => ({
  cache: NodePath.join(directory, "cache.db"),
  state: NodePath.join(directory, "state.db"),
  config: NodePath.join(directory, "config.toml"),
  transcripts: NodePath.join(directory, "transcripts")
})

/**
 * The services the engine needs, and the settings overrides, on their
 * production layers. An unattended session (it trims when the summariser
 * fails twice); provide an `Attention` layer over it for an attended one.
 * Fails to build when `state.db` cannot be opened or the config file or the
 * environment holds an invalid setting; an unusable `cache.db` only degrades
 * the cache to misses, with a warning.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 * import { mkdtempSync } from "node:fs"
 * import { tmpdir } from "node:os"
 * import { join } from "node:path"
 *
 * // The engine on one folder: the summary cache, the sessions' states, config.toml and the archive.
 * const directory = mkdtempSync(join(tmpdir(), "agent-"))
 * const services = Production.layerSqlite({ directory })
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 *
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const transcript = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
 *   return yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 200_000 })
 * })
 * const { view } = await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * assert.strictEqual(view.length, 1)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  options: Options = {}
): Layer.Layer<
  | Summarizer
  | SummaryCache
  | SummaryCacheSql.SqlCache
  | CompactionStore
  | Settings.Settings
  | Settings.SettingsOverrides
  | Tokenizer
  | Attention
  | TranscriptArchive,
  Compat.SqliteOpenError | Settings.SettingsError | Compat.SqlError | Compat.MigrationError | Compat.ConfigError
> => {
  const paths = pathsOf(options.directory)
  const storeTimeout = storeTimeoutOf(options)
  // A SQLite call blocks the event loop while it waits for a lock: the deadline cannot interrupt it, the busy timeout ends it.
  const busyTimeoutMs = Duration.toMillis(storeTimeout)
  const state = Compat.layerScoped(Compat.SqlClient, Compat.openSqlite({ filename: paths.state, busyTimeoutMs }))
  return Layer.mergeAll(
    summarizerOf(options),
    SummaryCacheSql.layerSqlite({
      filename: paths.cache,
      busyTimeoutMs: Math.min(busyTimeoutMs, SummaryCacheSql.defaultBusyTimeoutMs)
    }),
    Layer.merge(
      CompactionStoreSql.layer,
      SettingsConfig.layerSql({ path: paths.config, ...settingsOptions(options) })
    ).pipe(Layer.provide(Layer.merge(state, Compat.nodeFileSystem))),
    // A SQLite call runs on the event loop, where no deadline can end it (the busy timeouts do): only the archive's
    // files, read and written asynchronously, are given the deadline.
    localParts(paths, options.directory ?? defaultDirectory).pipe(StoreDeadline.within(storeTimeout))
  )
}

/**
 * Options of the PostgreSQL layer: those of the folder (which keeps
 * `config.toml` and `transcripts/`), the database's, and the cache's limits.
 *
 * @since 0.1.0
 * @category models
 */
export interface PgOptions extends Options, SqlPg.Options {
  readonly cache?: SummaryCacheSql.Options
  /** The archive's retention (age, size, how often writes prune). */
  readonly archive?: TranscriptArchiveSql.Options
}

/**
 * The services of `layerSqlite`, with the summary cache, the compaction
 * states (and each session's memory between checkpoints), the persisted
 * settings overrides and the transcript archive (`TranscriptArchiveSql`) in
 * the PostgreSQL database of `url` (migrated when the layer is built) instead
 * of SQLite files and folders; only `config.toml` is read from the folder,
 * and nothing is written there. Workers sharing the database share the
 * summaries and the sessions: a compaction saved by one is the state of all,
 * two that compact one session at once save one state, and a recall handle
 * written by one resolves through any other, for its own session. Fails to
 * build with `SqlPg.ConnectError` when the server cannot be reached, and with
 * `OptionalPackage.MissingPackageError` when `@effect/sql-pg` is not installed.
 *
 * @example
 * ```ts
 * import { Production } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Redacted } from "effect"
 *
 * // A fleet of workers on one PostgreSQL database: they share the summaries, the sessions and the archive.
 * export const engine = Production.layerEngine({
 *   engine: { policies: builtInPolicies },
 *   services: Production.layerPg({ url: Redacted.make("postgres://agents@db.internal/agents"), maxConnections: 10 })
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPg = (
  options: PgOptions
): Layer.Layer<
  | Summarizer
  | SummaryCache
  | SummaryCacheSql.SqlCache
  | CompactionStore
  | Settings.Settings
  | Settings.SettingsOverrides
  | Tokenizer
  | Attention
  | TranscriptArchive
  | TranscriptArchiveSql.SqlArchive,
  | SqlPg.ConnectError
  | OptionalPackage.MissingPackageError
  | Settings.SettingsError
  | Compat.SqlError
  | Compat.MigrationError
  | Compat.ConfigError
> => {
  const paths = pathsOf(options.directory)
  return Layer.mergeAll(
    summarizerOf(options),
    Layer.mergeAll(
      SummaryCacheSql.layer(options.cache),
      CompactionStoreSql.layer,
      SettingsConfig.layerSql({ path: paths.config, ...settingsOptions(options) }),
      TranscriptArchiveSql.layer(options.archive)
    ).pipe(Layer.provide(Layer.merge(SqlPg.layer(options), Compat.nodeFileSystem))),
    TokenizerBpe.layer,
    AttentionUnattended.layer
  ).pipe(StoreDeadline.within(storeTimeoutOf(options)))
}

/**
 * The services of `layerSqlite` with nothing on disk: the summary cache and
 * the compaction states in memory (gone with the process), the settings from
 * the environment and `values` (no `config.toml` is read), and no transcript
 * archive (the block names the session's transcript instead). Neither
 * SQLite nor any other native module is loaded. Fails to build when the
 * environment holds an invalid setting.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 *
 * // The engine with nothing on disk, for a short-lived process (a serverless function, a notebook).
 * const services = Production.layerMemory({ env: () => ({}), values: { triggerPct: 70 } })
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 *
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const transcript = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
 *   return yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 200_000 })
 * })
 * const { view } = await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * assert.strictEqual(view.length, 1)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (
  options: Omit<Options, "directory"> = {}
): Layer.Layer<
  Summarizer | SummaryCache | CompactionStore | Settings.Settings | Tokenizer | Attention | TranscriptArchive,
  Settings.SettingsError | Compat.ConfigError
> =>
  Layer.mergeAll(
    summarizerOf(options),
    SummaryCacheMemory.layer,
    CompactionStoreMemory.layer,
    SettingsConfig.layerEnv(settingsOptions(options)),
    TokenizerBpe.layer,
    AttentionUnattended.layer,
    TranscriptArchiveMemory.layer()
  )

/**
 * The services of `layerSqlite` for a folder whose SQLite files cannot be
 * opened because SQLite is not installed (`SqliteFile.unavailable`): the
 * summary cache, the compaction states and the settings overrides in memory,
 * for the process's life; `config.toml`, the environment and the archive of
 * the folder as `layerSqlite` has them (recall reads it).
 *
 * @example
 * ```ts
 * import { Production } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 *
 * // A folder's config.toml and archive, with the caches in memory: for a machine without SQLite.
 * export const engine = Production.layerEngine({
 *   engine: { policies: builtInPolicies },
 *   services: Production.layerFolderInMemory({ directory: ".context-compressor" })
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFolderInMemory = (
  options: Options = {}
): Layer.Layer<
  | Summarizer
  | SummaryCache
  | CompactionStore
  | Settings.Settings
  | Settings.SettingsOverrides
  | Tokenizer
  | Attention
  | TranscriptArchive,
  Settings.SettingsError | Compat.ConfigError
> => {
  const paths = pathsOf(options.directory)
  return Layer.mergeAll(
    summarizerOf(options),
    SummaryCacheMemory.layer,
    CompactionStoreMemory.layer,
    SettingsConfig.layerMemory({ path: paths.config, ...settingsOptions(options) }).pipe(
      Layer.provide(Compat.nodeFileSystem)
    ),
    localParts(paths, options.directory ?? defaultDirectory)
  )
}

/**
 * `layerSqlite`, or `layerFolderInMemory` when SQLite is not installed
 * (better-sqlite3 missing, or its native module not built): then `onMemory`
 * is told why first (a program says so in one line).
 *
 * @example
 * ```ts
 * import { Production } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 *
 * // A folder on SQLite when it is installed, else in memory, saying so once on standard error.
 * const services = Production.layerSqliteOrMemory({
 *   directory: ".context-compressor",
 *   onMemory: (reason) => Effect.logWarning(`the caches are in memory: ${reason}`)
 * })
 * export const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqliteOrMemory = (
  options: Options & { readonly onMemory?: ((reason: string) => Effect.Effect<void>) | undefined } = {}
): Layer.Layer<
  | Summarizer
  | SummaryCache
  | CompactionStore
  | Settings.Settings
  | Settings.SettingsOverrides
  | Tokenizer
  | Attention
  | TranscriptArchive,
  Compat.SqliteOpenError | Settings.SettingsError | Compat.SqlError | Compat.MigrationError | Compat.ConfigError
> =>
  Compat.unwrapLayer(
    Effect.map(Compat.sqliteUnavailable, (reason) =>
      reason === undefined
        ? layerSqlite(options)
        : Layer.merge(layerFolderInMemory(options), Layer.effectDiscard(options.onMemory?.(reason) ?? Effect.void)))
  )

const storeTimeoutOf = (options: Options): Duration.Duration =>
  Compat.durationFromInput(options.storeTimeout ?? StoreDeadline.defaultTimeout)

const settingsOptions = (options: Options) => ({
  ...(options.env === undefined ? {} : { env: options.env }),
  ...(options.values === undefined ? {} : { values: options.values })
})

/**
 * Node's file system and paths (`@effect/platform-node`'s, of the application's
 * Effect), imported when the layer is built: what the settings from a file and
 * the archive of files ask for.
 *
 * @example
 * ```ts
 * import { Production, SettingsConfig } from "context-compressor/layers"
 * import { Settings } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 *
 * // Settings from a config.toml that is not there: the defaults, read through Node's file system.
 * const settings = SettingsConfig.layerConfig({ path: "missing/config.toml", env: () => ({}) })
 * const program = Effect.flatMap(Settings.Settings, (settings) => settings.current)
 * const values = await Effect.runPromise(Effect.provide(program, settings.pipe(Layer.provide(Production.nodeFileSystem))))
 * assert.strictEqual(values.triggerPct, Settings.defaults.triggerPct)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const nodeFileSystem: Layer.Layer<Compat.FileSystem | Compat.Path> = Compat.nodeFileSystem

/**
 * Node's `HttpClient` (over undici), imported when the layer is built: only
 * the summarisers that call a server need it, and loading it costs a third of
 * the program's start.
 *
 * @example
 * ```ts
 * import { Production, SummarizerChatCompletions } from "context-compressor/layers"
 * import { Layer } from "effect"
 *
 * // Node's HttpClient for a summariser that calls a server, loaded only when the layer is built.
 * const options = { baseUrl: "http://localhost:11434/v1", model: "qwen3:8b" }
 * export const summarizer = SummarizerChatCompletions.layer(options).pipe(Layer.provide(Production.nodeHttpClient))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const nodeHttpClient: Layer.Layer<Compat.HttpClient> = Compat.nodeHttpClient

const summarizerOf = (options: Options): Layer.Layer<Summarizer, Compat.ConfigError> =>
  options.summarizer === "chat-completions"
    ? SummarizerChatCompletions.layerConfig.pipe(Layer.provide(nodeHttpClient))
    : SummarizerOffline.layer

/** What stays on the machine whatever the database: the tokenizer, attention and the archive. */
const localParts = (
  paths: ReturnType<typeof pathsOf>,
  directory: string
): Layer.Layer<Tokenizer | Attention | TranscriptArchive> =>
  Layer.mergeAll(
    TokenizerBpe.layer,
    AttentionUnattended.layer,
    TranscriptArchiveFile.layer({ directory: paths.transcripts, relativeTo: directory }).pipe(
      Layer.provide(Compat.nodeFileSystem)
    )
  )

/**
 * What {@link layerEngine} wires: the engine's options, the services it runs
 * on, and the parts that stand in for theirs.
 *
 * @since 0.1.0
 * @category models
 */
export interface EngineOptions<ROut, E, E2 = never, E3 = never> {
  /** The engine's options (`Compactor.Options`: the retention policies, the slice, the caches' bound, …). */
  readonly engine: Compactor.Options
  /**
   * The services the engine runs on: `layerSqlite` (a folder), `layerPg` (a
   * database), `layerMemory` (nothing on disk), or parts a program chose
   * itself (the command line's files). Every service they give stays
   * available beside the engine (the settings overrides, the tokenizer).
   */
  readonly services:
    & Layer.Layer<ROut, E>
    & ([Exclude<Services, ROut>] extends [never] ? unknown : { readonly missingService: Exclude<Services, ROut> })
  /** A summariser over the services' own (a server of the caller's, an AI SDK model, a recording). */
  readonly summarizer?: Layer.Layer<Summarizer, E2> | undefined
  /** An attention over the services' own (a terminal, the compacting fiber's, a callback's). */
  readonly attention?: Layer.Layer<Attention, E3> | undefined
}

/**
 * The engine on its services: the one wiring of the command line, the
 * server, the proxy and the Promise API. The engine is made once over
 * `services`, with `summarizer` and `attention` in place of theirs when
 * given, and the services stay available beside it.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { AttentionUnattended, Production, SummarizerOffline, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 *
 * // Four rounds of failing test output: more than an 8,000-token window holds.
 * const call = (n: number) => new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: "{}" })
 * const transcript = [1, 2, 3, 4].flatMap((n) => [
 *   new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: run the parser tests.` }),
 *   new Transcript.AssistantMessage({ id: `a${n}`, content: "", toolCalls: [call(n)] }),
 *   new Transcript.ToolResult({ id: `r${n}`, toolCallId: `c${n}`, name: "bash", content: "FAIL\n".repeat(3000) })
 * ])
 *
 * // The engine on the test services, with the summariser and attention chosen apart from them.
 * const engine = Production.layerEngine({
 *   engine: { policies: builtInPolicies },
 *   services: Testing.layer(),
 *   summarizer: SummarizerOffline.layer,
 *   attention: AttentionUnattended.layer
 * })
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   assert.strictEqual(view[0]?._tag, "Compacted")
 * })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEngine = <ROut, E, E2 = never, E3 = never>(
  options: EngineOptions<ROut, E, E2, E3>
): Layer.Layer<Compactor.Compactor | ROut, E | E2 | E3> => {
  const engine = Compactor.layer(options.engine)
  const withSummarizer = options.summarizer === undefined ? engine : engine.pipe(Layer.provide(options.summarizer))
  const withAttention = options.attention === undefined
    ? withSummarizer
    : withSummarizer.pipe(Layer.provide(options.attention))
  // `ROut` gives every service the engine needs (it extends `Services`), which the compiler cannot see through `Exclude`.
  return withAttention.pipe(Layer.provideMerge(options.services)) as Layer.Layer<
    Compactor.Compactor | ROut,
    E | E2 | E3
  >
}
